import Foundation
import Glibc
import MSAL
import MSALSupport
import Testing

@Suite("Token cache file: failed writes keep the old file; quarantine")
struct TokenCacheFileFailureTests {
    /// Names of leftover temporary files in `scratch`.
    func temporaryFiles(_ scratch: ScratchDirectory) -> [String] {
        scratch.names().filter { $0.contains(".tmp-") }
    }

    @Test("A read-only directory: the write fails with cacheIOFailure, the old file stays readable")
    func readOnlyDirectory() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try TokenCacheFile(path: scratch.file())
        try file.put("old")
        try #require(makeReadOnly(scratch.path), "could not make \(scratch.path) read-only")
        defer { makeWritable(scratch.path) }
        expectMSALError(.cacheIOFailure, mentioning: [file.path, "temporary file", "errno"]) { try file.put("new") }
        #expect(try file.get() == "old")
        #expect(temporaryFiles(scratch).isEmpty)
    }

    @Test("A read-only directory without a lock file: shared reads work unlocked, exclusive access fails")
    func readOnlyDirectoryWithoutLockFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try RawFile.write(scratch.file(), "shipped", mode: 0o600)
        let file = try TokenCacheFile(path: scratch.file())
        try #require(makeReadOnly(scratch.path), "could not make \(scratch.path) read-only")
        defer { makeWritable(scratch.path) }
        #expect(try file.get() == "shipped")
        expectMSALError(.cacheIOFailure, mentioning: [file.lockPath, "lock file"]) { try file.put("new") }
        #expect(scratch.names() == ["token_cache.json"])
    }

    @Test("A directory that cannot be created (a regular file in the way) is cacheIOFailure naming the path")
    func pathUnderAFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try RawFile.write(scratch.file("plain"), "x")
        let file = try TokenCacheFile(path: scratch.path + "/plain/sub/token_cache.json")
        expectMSALError(.cacheIOFailure, mentioning: [file.path, "Not a directory"]) { try file.put("x") }
        let direct = try TokenCacheFile(path: scratch.path + "/plain/token_cache.json")
        expectMSALError(.cacheIOFailure, mentioning: [direct.path, "Not a directory"]) { _ = try direct.get() }
        #expect(RawFile.text(scratch.file("plain")) == "x")
    }

    @Test("The directory removed while the lock is held: the write fails with cacheIOFailure")
    func directoryRemovedMidway() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.path + "/msal"
        let file = try TokenCacheFile(path: directory + "/token_cache.json")
        try file.put("old")
        try file.withLock(exclusive: true) { access in
            try FileManager.default.removeItem(atPath: directory)
            expectMSALError(.cacheIOFailure, mentioning: [file.path, "No such file or directory"]) {
                _ = try access.write(Array("new".utf8))
            }
            #expect(try access.read() == nil)
        }
        #expect(RawFile.status(directory) == nil)
    }

    @Test("A temporary name over the name length limit fails the write and keeps the old file")
    func nameTooLong() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // 240 bytes: the file and `.lock` fit in NAME_MAX (255), `.tmp-<pid>-<random>` does not.
        let path = scratch.file(String(repeating: "n", count: 240))
        try RawFile.write(path, "old")
        let file = try TokenCacheFile(path: path)
        expectMSALError(.cacheIOFailure, mentioning: [path, "File name too long"]) { try file.put("new") }
        #expect(try file.get() == "old")
    }

    @Test("A failure just before the rename removes the complete temporary file and keeps the old file")
    func failureBeforeRename() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let seen = HookRecorder()
        let options = TokenCacheFileOptions(beforeRename: { temporary in
            seen.calls.withLock { $0.append((temporary, RawFile.text(temporary), RawFile.mode(temporary))) }
            throw HookFailure()
        })
        try TokenCacheFile(path: scratch.file()).put("old content")
        let file = try TokenCacheFile(path: scratch.file(), options: options)
        let error = expectMSALError(.cacheIOFailure, mentioning: [file.path, "hook failure"]) { try file.put("new content") }
        #expect(error?.underlyingError is HookFailure)
        #expect(try file.get() == "old content")
        #expect(temporaryFiles(scratch).isEmpty)
        let record = try #require(seen.calls.withLock { $0.first })
        #expect(record.path.hasPrefix(scratch.file() + ".tmp-\(getpid())-"))
        #expect(record.text == "new content")
        #expect(record.mode == 0o600)
    }

    @Test("An I/O error part-way through the write (file size limit) keeps the old file and removes the temporary file")
    func writeErrorMidway() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try TokenCacheFile(path: scratch.file())
        try file.put("old content")
        let outcome = try await StressWorker.run(["write-limited", scratch.file(), "4096"])
        #expect(outcome.status == 1, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("error \(MSALInternalError.cacheIOFailure.rawValue) "), "\(outcome.standardError)")
        #expect(outcome.standardError.contains(scratch.file()))
        #expect(outcome.standardError.contains("File too large"), "\(outcome.standardError)")
        #expect(try file.get() == "old content")
        #expect(temporaryFiles(scratch).isEmpty)
    }

    @Test("A full disk is named in the message with the errno text")
    func diskFullMessage() {
        let error = MSALFailure.cacheIO("/home/u/.cache/msal/token_cache.json", "write", errno: ENOSPC)
        #expect(error.internalCode == .cacheIOFailure)
        #expect(error.message.contains("/home/u/.cache/msal/token_cache.json"))
        #expect(error.message.contains("disk full"))
        #expect(error.message.contains("No space left on device (errno \(ENOSPC))"))
        let quota = MSALFailure.cacheIO("/p", "write", errno: EDQUOT)
        #expect(quota.message.contains("disk full"))
        let other = MSALFailure.cacheIO("/p", "write", errno: EIO)
        #expect(!other.message.contains("disk full"))
        #expect(other.message.contains("Input/output error"))
    }

    @Test("Quarantine moves the file to <path>.corrupt-<UTC time>, then -1, -2 for the same second")
    func quarantineNames() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let clock = ManualClock(1_700_000_000)  // 2023-11-14T22:13:20Z
        let file = try TokenCacheFile(path: scratch.file(), options: TokenCacheFileOptions(clock: clock))
        var moved: [String] = []
        for index in 0..<3 {
            try file.put("corrupt \(index)")
            moved.append(try file.withLock(exclusive: true) { try $0.quarantine(reason: "not JSON") })
        }
        let base = scratch.file() + ".corrupt-20231114T221320Z"
        #expect(moved == [base, base + "-1", base + "-2"])
        for (index, path) in moved.enumerated() {
            #expect(RawFile.text(path) == "corrupt \(index)")
            #expect(RawFile.mode(path) == 0o600)
        }
        #expect(try file.get() == nil)
        clock.advance(by: 3_600 * 24 * 40 + 5)  // 2023-12-24T22:13:25Z
        try file.put("later")
        let later = try file.withLock(exclusive: true) { try $0.quarantine(reason: "truncated") }
        #expect(later == scratch.file() + ".corrupt-20231224T221325Z")
    }

    @Test("Quarantine without a file is cacheIOFailure naming the reason")
    func quarantineNothing() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try TokenCacheFile(path: scratch.file())
        try file.withLock(exclusive: true) { access in
            expectMSALError(.cacheIOFailure, mentioning: [file.path, "truncated document", "No such file"]) {
                _ = try access.quarantine(reason: "truncated document")
            }
        }
    }

    @Test("Quarantine also moves an unsafe file aside (it is the caller's decision), without touching a symlink's target")
    func quarantineSymlink() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try RawFile.write(scratch.file("target"), "target", mode: 0o600)
        #expect(symlink(scratch.file("target"), scratch.file()) == 0)
        let file = try TokenCacheFile(path: scratch.file(), options: TokenCacheFileOptions(clock: ManualClock(0)))
        let moved = try file.withLock(exclusive: true) { try $0.quarantine(reason: "unsafe") }
        #expect(moved == scratch.file() + ".corrupt-19700101T000000Z")
        #expect(RawFile.isSymlink(moved))
        #expect(RawFile.text(scratch.file("target")) == "target")
    }
}

/// What the `beforeRename` hook saw: the temporary file's path, content and mode.
final class HookRecorder: Sendable {
    let calls = Mutex<[(path: String, text: String?, mode: mode_t?)]>([])
}
