import Foundation
import Glibc
import Testing

@testable import MSAL

/// The two lock files beside a cache file (or a Secret Service signal file): the `flock` target
/// `<path>.lock` and msal-extensions' `<path>.lockfile`. Something other than a regular file at
/// either name is refused at once with `cacheUnsafeFile`, never followed, waited for or removed.
@Suite("Token cache lock files: a symlink or a non-file is refused at once, untouched")
struct LockFileSafetyTests {
    /// Well under the 10 s lock timeout: a refusal, not a wait.
    static let quick: Double = 2

    /// What the symlink points at.
    enum Target: String, CaseIterable, CustomTestStringConvertible {
        case existingFile = "an existing file"
        case dangling = "nothing (dangling)"

        var testDescription: String { rawValue }
    }

    /// Runs `body`, returning its `MSALFailure` (recording an issue when it throws anything else or
    /// nothing) and the seconds it took.
    static func timedFailure(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> (MSALFailure?, Double) {
        let start = Date()
        var failure: MSALFailure?
        do {
            try body()
            Issue.record("expected an MSALFailure, nothing was thrown", sourceLocation: sourceLocation)
        } catch let error as MSALFailure {
            failure = error
        } catch {
            Issue.record("expected an MSALFailure, got \(error)", sourceLocation: sourceLocation)
        }
        return (failure, Date().timeIntervalSince(start))
    }

    @Test(
        "A symlink at <cache>.lockfile or <cache>.lock fails a write at once with cacheUnsafeFile; the link and its target are untouched",
        arguments: [".lockfile", ".lock"], Target.allCases)
    func symlinkedLockFile(suffix: String, target: Target) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let cache = scratch.file()
        let lockName = cache + suffix
        let victim = scratch.file("victim")
        if target == .existingFile { try RawFile.write(victim, "victim content", mode: 0o600) }
        #expect(symlink(victim, lockName) == 0)
        let file = try TokenCacheFile(path: cache)

        let (failure, seconds) = Self.timedFailure { try file.put(#"{"AccessToken":{}}"#) }
        #expect(failure?.internalCode == .cacheUnsafeFile, "\(String(describing: failure))")
        #expect(failure?.message.contains(lockName) == true, "\(String(describing: failure?.message))")
        #expect(failure?.message.contains("symbolic link") == true)
        #expect(failure?.message.contains("fix or remove it") == true)
        #expect(seconds < Self.quick, "took \(seconds) s")

        #expect(RawFile.isSymlink(lockName))
        let link = try FileManager.default.destinationOfSymbolicLink(atPath: lockName)
        #expect(link == victim)
        switch target {
        case .existingFile:
            #expect(RawFile.text(victim) == "victim content")
            #expect(RawFile.mode(victim) == 0o600)
        case .dangling:
            #expect(RawFile.status(victim) == nil)
        }
        #expect(RawFile.status(cache) == nil, "the cache file was written")
    }

    @Test("A directory or a FIFO at <cache>.lockfile fails a write at once with cacheUnsafeFile and stays")
    func notARegularLockFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let cache = scratch.file()
        let lockName = cache + ".lockfile"
        let file = try TokenCacheFile(path: cache)
        for make in [{ mkdir(lockName, 0o700) }, { mkfifo(lockName, 0o600) }] {
            #expect(make() == 0)
            let (failure, seconds) = Self.timedFailure { try file.put("{}") }
            #expect(failure?.internalCode == .cacheUnsafeFile)
            #expect(failure?.message.contains(lockName) == true)
            #expect(failure?.message.contains("not a regular file") == true)
            #expect(seconds < Self.quick, "took \(seconds) s")
            #expect(RawFile.status(lockName) != nil)
            #expect(remove(lockName) == 0)
        }
        #expect(RawFile.status(cache) == nil)
    }

    @Test("The Secret Service storage's <signal>.lockfile: a symlink fails the signal file's write lock at once, untouched")
    func signalLockFileSymlink() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let signal = scratch.file("token_cache.signal")
        let victim = scratch.file("victim")
        try RawFile.write(victim, "victim content", mode: 0o600)
        #expect(symlink(victim, signal + ".lockfile") == 0)
        // The lock every Secret Service write takes (TokenCache.writeSecret); the rest of that write
        // needs a Secret Service (SecretServiceLockFileTests runs it against a real keyring).
        let store = try SecretServiceStore(settings: MSALSecretServiceStorage(signalFilePath: signal), fileOptions: .init())
        let (failure, seconds) = Self.timedFailure { try store.signal.withLock(exclusive: true) { _ in } }
        #expect(failure?.internalCode == .cacheUnsafeFile)
        #expect(failure?.message.contains(signal + ".lockfile") == true)
        #expect(seconds < Self.quick, "took \(seconds) s")
        #expect(RawFile.isSymlink(signal + ".lockfile"))
        #expect(RawFile.text(victim) == "victim content")
        // Reads take only the flock: they still work.
        #expect(try store.signal.withLock(exclusive: false) { _ in true })
    }

    @Test("A regular .lockfile of a live process is still waited for, and the wait ends in cacheLockTimeout")
    func regularLockFileStillWaits() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let cache = scratch.file()
        try RawFile.write(cache + ".lockfile", "\(getpid()) /usr/bin/python3")
        let file = try TokenCacheFile(path: cache, options: TokenCacheFileOptions(lockTimeout: 0.3))
        let (failure, seconds) = Self.timedFailure { try file.put("{}") }
        #expect(failure?.internalCode == .cacheLockTimeout)
        #expect(seconds >= 0.3)
        #expect(RawFile.text(cache + ".lockfile") == "\(getpid()) /usr/bin/python3")
    }
}
