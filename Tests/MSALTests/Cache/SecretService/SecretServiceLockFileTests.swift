import Foundation
import Testing

@testable import MSAL

/// msal-extensions' lock `<signal>.lockfile` of the Secret Service storage, against a real
/// `gnome-keyring-daemon` (``SecretServiceSession``): a symlink there fails a write at once.
@Suite("Secret Service storage: a symlinked <signal>.lockfile (real gnome-keyring)", .timeLimit(.minutes(3)))
struct SecretServiceLockFileTests {
    @Test(
        "A symlink at <signal>.lockfile fails a write with cacheUnsafeFile at once (not after the lock timeout); link and target untouched")
    func symlinkedSignalLockFile() async throws {
        let session = try await SecretServiceSession()
        defer { session.stop() }
        let signal = session.home.appendingPathComponent("cache.signal").path
        let victim = session.home.appendingPathComponent("victim").path
        try RawFile.write(victim, "victim content")
        #expect(symlink(victim, signal + ".lockfile") == 0)

        // The worker's lock timeout is 300 s: before the fix, this write polled the symlink until then.
        let start = Date()
        let run = try await session.run(StressWorker.executable.path, ["cache-save", "secret:\(signal)", "1", "x"], timeout: 60)
        let seconds = Date().timeIntervalSince(start)
        #expect(run.status == 1)
        #expect(run.errors.hasPrefix("error -48003 "), "\(run.errors)")
        #expect(run.errors.contains(signal + ".lockfile") && run.errors.contains("symbolic link"), "\(run.errors)")
        // A process start and one D-Bus lookup; far under any lock timeout.
        #expect(seconds < 10, "took \(seconds) s")
        #expect(RawFile.isSymlink(signal + ".lockfile"))
        #expect(RawFile.text(victim) == "victim content")
    }
}
