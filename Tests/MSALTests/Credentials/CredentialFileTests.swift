import Foundation
import MSALSupport
import Testing

@testable import MSAL

#if canImport(Glibc)
import Glibc
#endif

/// Credential files that are not regular files (issue 39, findings 1 and 7): a FIFO is refused at
/// once instead of blocking forever, a directory in plain words; for a certificate, a private key
/// and a workload identity's token file.
@Suite("Credential files: FIFOs and directories are refused at once, in plain words")
struct CredentialFileTests {
    /// A scratch folder with a FIFO (no writer ever opens it), a directory and a regular file.
    struct Scratch {
        let root: URL
        var fifo: String { root.appendingPathComponent("credential.fifo").path }
        var directory: String { root.appendingPathComponent("credentials.d").path }
        var file: String { root.appendingPathComponent("token.jwt").path }

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("msal-credential-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(
                atPath: root.appendingPathComponent("credentials.d").path, withIntermediateDirectories: true)
            #expect(mkfifo(root.appendingPathComponent("credential.fifo").path, 0o600) == 0)
            try Data("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ3b3JrbG9hZCJ9.c2ln".utf8).write(to: root.appendingPathComponent("token.jwt"))
        }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    /// Runs `body` on a thread of its own and waits at most `seconds`: a read that blocks (the old
    /// behaviour on a FIFO) fails the test instead of hanging the run.
    static func withinBound<T: Sendable>(seconds: Double = 10, _ body: @escaping @Sendable () throws -> T) async -> Result<T, any Error>? {
        let outcome = Mutex<Result<T, any Error>?>(nil)
        Thread.detachNewThread {
            let result = Result { try body() }
            outcome.withLock { $0 = result }
        }
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let result = outcome.withLock({ $0 }) { return result }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        // Looked at once more past the deadline: on a loaded machine this task may resume only long
        // after the read returned (it failed so once, in a full parallel run), and that is no hang.
        return outcome.withLock { $0 }
    }

    static func failure<T>(_ result: Result<T, any Error>?) throws -> MSALFailure {
        let result = try #require(result, "the read did not return within its bound")
        guard case .failure(let error) = result else {
            Issue.record("the read succeeded")
            throw CancellationError()
        }
        return try #require(error as? MSALFailure)
    }

    @Test("A FIFO as the certificate or the private key is refused at once with invalidCredential")
    func certificateFIFO() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.fifo
        let asCertificate = try Self.failure(
            await Self.withinBound { try MSALClientCertificate(privateKeyFile: scratch.file, certificateFile: path) })
        #expect(asCertificate.internalCode == .invalidCredential)
        #expect(asCertificate.message.contains("not a regular file"))
        let asKey = try Self.failure(
            await Self.withinBound { try MSALClientCertificate(privateKeyFile: path, certificateFile: scratch.file) })
        #expect(asKey.internalCode == .invalidCredential)
    }

    @Test("A directory as the certificate says so in plain words, with no Foundation error inside")
    func certificateDirectory() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.directory
        let error = try Self.failure(
            await Self.withinBound { try MSALClientCertificate(privateKeyFile: scratch.file, certificateFile: path) })
        #expect(error.internalCode == .invalidCredential)
        #expect(error.message.contains("is a directory"))
        #expect(!error.message.contains("NSCocoaErrorDomain"))
        #expect(!error.description.contains("(null)"))
        let missing = try Self.failure(
            await Self.withinBound { try MSALClientCertificate(privateKeyFile: scratch.file + ".none", certificateFile: scratch.file) })
        #expect(missing.message.contains("no such file"))
    }

    @Test("A workload identity token file that is a FIFO or a directory fails the assertion at once; a regular one is read")
    func workloadIdentity() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let clientID = "0f3c5a9e-2b71-4d8e-a6c4-9e1b7d2f5a30"
        let endpoint = "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token"
        for path in [scratch.fifo, scratch.directory] {
            let authentication = ClientAuthentication(
                credential: .workloadIdentity(tokenFile: path), clientID: clientID, clock: ManualClock())
            let started = Date()
            do {
                _ = try await authentication.formFields(tokenEndpoint: endpoint, sha256Thumbprint: true)
                Issue.record("\(path) gave an assertion")
            } catch let error as MSALFailure {
                #expect(error.internalCode == .clientAssertionFailed)
                #expect(error.message.contains(path == scratch.fifo ? "not a regular file" : "is a directory"))
            }
            #expect(Date().timeIntervalSince(started) < 10)
        }
        let regular = ClientAuthentication(credential: .workloadIdentity(tokenFile: scratch.file), clientID: clientID, clock: ManualClock())
        let fields = try await regular.formFields(tokenEndpoint: endpoint, sha256Thumbprint: true)
        #expect(fields.contains { $0.0 == "client_assertion" && $0.1.hasPrefix("eyJhbGciOiJSUzI1NiJ9.") })
    }

    @Test("A workload identity token file that is not UTF-8 is refused (clientAssertionFailed, the offset named), not sent changed")
    func workloadIdentityNotUTF8() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.root.appendingPathComponent("invalid.jwt").path
        try Data(Array("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ3b3JrbG9hZCJ9.c2ln".utf8) + [0xFF, 0xFE]).write(to: URL(fileURLWithPath: path))
        let authentication = ClientAuthentication(
            credential: .workloadIdentity(tokenFile: path), clientID: "0f3c5a9e-2b71-4d8e-a6c4-9e1b7d2f5a30", clock: ManualClock())
        do {
            let fields = try await authentication.formFields(
                tokenEndpoint: "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token", sha256Thumbprint: true)
            Issue.record("an assertion that is not UTF-8 was sent: \(fields.filter { $0.0 == "client_assertion" })")
        } catch let error as MSALFailure {
            #expect(error.internalCode == .clientAssertionFailed)
            #expect(error.message.contains("not valid UTF-8") && error.message.contains("offset 50"), "\(error.message)")
            #expect(!error.message.contains("eyJ"), "the message quotes the token: \(error.message)")
        }
    }

    @Test("CredentialFile.text: valid UTF-8 as it is; else invalidCredential at the first bad byte, a cut sequence included")
    func textOffsets() throws {
        #expect(try CredentialFile.text(Array("pässwörd ✓".utf8), name: "The file") == "pässwörd ✓")
        for (bytes, offset) in [([0xC3, 0xA9, 0xFF], 2), ([0x61, 0x62, 0xE2, 0x82], 2), ([0xC0, 0x80], 0), ([0xED, 0xA0, 0x80], 0)] {
            do {
                _ = try CredentialFile.text(bytes.map(UInt8.init), name: "The file")
                Issue.record("\(bytes) was accepted")
            } catch let error as MSALFailure {
                #expect(error.internalCode == .invalidCredential)
                #expect(
                    error.message == "The file is not valid UTF-8 text (the first invalid byte is at offset \(offset)); save it as UTF-8")
            }
        }
    }
}
