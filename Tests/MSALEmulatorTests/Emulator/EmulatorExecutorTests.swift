import Dispatch
import Foundation
import MSALEmulator
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The emulator answers on SwiftNIO's event loops, not on Swift's cooperative pool: a test process
/// or an app whose tasks keep every cooperative thread busy still gets its answers (a full
/// parallel test run once kept a request waiting past the client's 10 s network timeout).
@Suite("Emulator answers while every cooperative thread is busy")
struct EmulatorExecutorTests {
    @Test("Discovery and a token request are answered while tasks block every cooperative thread")
    func answersWithThePoolBlocked() async throws {
        let emulator = try MSALEmulator(configuration: .sample)
        try await emulator.start()
        let authority = emulator.authorityURL(tenant: MSALEmulator.Configuration.sampleContosoTenantID)
        let port = try #require(authority.port)
        let discovery =
            "GET \(authority.path)/v2.0/.well-known/openid-configuration HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n"
        let body = "grant_type=client_credentials&client_id=nobody&scope=https%3A%2F%2Fgraph.microsoft.com%2F.default"
        let token =
            "POST \(authority.path)/oauth2/v2.0/token HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"

        // On a Dispatch thread: hold every cooperative thread in a blocked task, then talk to the
        // emulator with blocking sockets, and only then let the tasks go.
        let answers: [String]
        do {
            answers = try await Self.whileThePoolIsBlocked { try [discovery, token].map { try Self.exchange(port: port, $0, timeout: 5) } }
        } catch {
            try? await emulator.shutdown()
            throw error
        }
        try await emulator.shutdown()
        #expect(answers[0].hasPrefix("HTTP/1.1 200"), "\(answers[0].prefix(200))")
        #expect(answers[0].contains("\"token_endpoint\""))
        // An unknown client: the emulator's AAD error, which is an answer all the same.
        #expect(answers[1].hasPrefix("HTTP/1.1 4"), "\(answers[1].prefix(200))")
        #expect(answers[1].contains("unauthorized_client") || answers[1].contains("invalid_client"), "\(answers[1])")
    }

    /// Runs `body` on a Dispatch thread while detached tasks hold every cooperative thread (as many
    /// as the machine has cores), blocked until `body` returns.
    static func whileThePoolIsBlocked<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                let width = ProcessInfo.processInfo.activeProcessorCount
                let started = DispatchSemaphore(value: 0)
                let release = DispatchSemaphore(value: 0)
                for _ in 0..<width {
                    Task.detached {
                        started.signal()
                        block(on: release)
                    }
                }
                for _ in 0..<width { started.wait() }
                defer { for _ in 0..<width { release.signal() } }
                continuation.resume(with: Result { try body() })
            }
        }
    }

    /// Waits for `semaphore`: the blocking wait the test means to make on a cooperative thread.
    static func block(on semaphore: DispatchSemaphore) { semaphore.wait() }

    /// Sends `request` over a new blocking TCP connection to 127.0.0.1:`port` and returns everything
    /// read until the server closes, failing if nothing has come for `timeout` seconds.
    static func exchange(port: Int, _ request: String, timeout: Int) throws -> String {
        struct SocketError: Error, CustomStringConvertible {
            var description: String
        }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw SocketError(description: "socket: errno \(errno)") }
        defer { close(descriptor) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw SocketError(description: "connect: errno \(errno)") }
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw SocketError(description: "send: errno \(errno)") }
            sent += count
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            guard count > 0 else {
                throw SocketError(description: "nothing from the emulator for \(timeout) s (errno \(errno)) after \(received.count) bytes")
            }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }
}
