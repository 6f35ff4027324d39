import Foundation
import Glibc
import MSALSupport

/// One mode of the worker: its argument synopsis and its body.
struct WorkerMode: Sendable {
    /// The arguments after the mode name, for the usage text.
    var usage: String
    /// Runs the mode with the arguments after its name; returns normally for exit status 0.
    var run: @Sendable (_ arguments: [String]) throws -> Void

    /// Every mode, by name.
    static let all: [String: WorkerMode] = FileModes.all.merging(CacheModes.all) { first, _ in first }
        .merging(ProviderModes.all) { first, _ in first }.merging(RefreshModes.all) { first, _ in first }
        .merging(PoolModes.all) { first, _ in first }.merging(SecretServiceModes.all) { first, _ in first }

    /// Writes `text` and a newline to standard error (unbuffered).
    static func printError(_ text: String) {
        emit(text + "\n", to: STDERR_FILENO)
    }

    /// Writes `text` to the descriptor at once, bypassing stdio buffers.
    static func emit(_ text: String, to descriptor: Int32) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR {
                continue
            }
            guard count > 0 else { return }
            offset += count
        }
    }

    /// Prints `usage` to standard error and exits with status 2.
    static func fail(usage: String) -> Never {
        printError(usage)
        exit(2)
    }

    /// The argument at `index` as a positive integer, or a usage failure.
    static func count(_ arguments: [String], _ index: Int, _ usage: String) -> Int {
        guard index < arguments.count, let value = Int(arguments[index]), value > 0 else {
            fail(usage: usage)
        }
        return value
    }

    /// Runs `body` to completion from this synchronous worker entry point.
    static func runBlocking(_ body: @escaping @Sendable () async throws -> Void) throws {
        let outcome = Mutex<Result<Void, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do {
                try await body()
                outcome.withLock { $0 = .success(()) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        try outcome.withLock { $0! }.get()
    }
}
