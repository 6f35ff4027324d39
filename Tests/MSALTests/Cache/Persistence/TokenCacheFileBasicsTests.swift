import Foundation
import Glibc
import MSAL
import Testing

@Suite("Token cache file: round trip, modes, stamps, lock nesting and misuse")
struct TokenCacheFileBasicsTests {
    @Test("A missing file reads as nil; a written file reads back byte for byte")
    func roundTrip() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try TokenCacheFile(path: scratch.file())
        #expect(try file.get() == nil)
        #expect(try file.withLock(exclusive: false) { try $0.stamp() } == nil)
        let text = "{\"AccessToken\": {}, \"ünïcødé\": \"\u{1F511}\"}\n"
        try file.put(text)
        #expect(try file.get() == text)
        try file.put("")
        #expect(try file.withLock(exclusive: false) { try $0.read() } == [])
        let large = String(repeating: "0123456789abcdef", count: 100_000)
        try file.put(large)
        #expect(try file.get() == large)
    }

    @Test("Missing directories are created 0700; the file and the lock file are created 0600")
    func createdModes() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path + "/a/b/msal/token_cache.json"
        let file = try TokenCacheFile(path: path)
        try file.put("{}")
        for directory in ["/a", "/a/b", "/a/b/msal"] {
            #expect(RawFile.mode(scratch.path + directory) == 0o700, "\(directory)")
        }
        #expect(RawFile.mode(path) == 0o600)
        #expect(RawFile.mode(path + ".lock") == 0o600)
        #expect(file.lockPath == path + ".lock")
        #expect(scratch.names(scratch.path + "/a/b/msal") == ["token_cache.json", "token_cache.json.lock"])
    }

    @Test("A shared lock also creates the directory and the lock file")
    func sharedCreates() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path + "/new/token_cache.json"
        #expect(try TokenCacheFile(path: path).get() == nil)
        #expect(RawFile.mode(scratch.path + "/new") == 0o700)
        #expect(RawFile.mode(path + ".lock") == 0o600)
    }

    @Test("The stamp is nil without a file, matches the write and the read, and changes with every write")
    func stamps() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try TokenCacheFile(path: scratch.file())
        let first = try file.put("same bytes")
        let (stamp, read) = try file.withLock(exclusive: false) { access in
            (try access.stamp(), try access.readStamped())
        }
        #expect(stamp == first)
        #expect(read?.stamp == first)
        #expect(read.map { String(decoding: $0.source.allBytes, as: UTF8.self) } == "same bytes")
        #expect(first.size == 10)
        // Same size, same bytes, probably the same timestamp tick: still a different stamp.
        let second = try file.put("same bytes")
        #expect(second != first)
        #expect(try file.withLock(exclusive: false) { try $0.stamp() } == second)
    }

    @Test("A write after a file dated in the future still gets a later modification time")
    func stampAfterFutureFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try TokenCacheFile(path: scratch.file())
        try file.put("old")
        let future = Int(Date().timeIntervalSince1970) + 86_400
        try RawFile.setTimes(scratch.file(), seconds: future)
        let old = try #require(try file.withLock(exclusive: false) { try $0.stamp() })
        #expect(old.modificationSeconds == Int64(future))
        let new = try file.put("new")
        #expect(new.modificationSeconds == Int64(future))
        #expect(new.modificationNanoseconds == 1)
        #expect(new != old)
    }

    @Test("Writing or quarantining under a shared lock is a programming error, and the file is untouched")
    func sharedWriteRefused() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try TokenCacheFile(path: scratch.file())
        try file.put("old")
        try file.withLock(exclusive: false) { access in
            #expect(!access.isExclusive)
            expectMSALError(.internalErrorUnexpected, mentioning: ["exclusive", scratch.file()]) { _ = try access.write([1, 2, 3]) }
            expectMSALError(.internalErrorUnexpected, mentioning: ["exclusive"]) { _ = try access.quarantine(reason: "test") }
        }
        #expect(try file.get() == "old")
        #expect(scratch.names() == ["token_cache.json", "token_cache.json.lock"])
    }

    @Test("An access used after its withLock call returned throws instead of acting unlocked")
    func escapedAccess() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try TokenCacheFile(path: scratch.file())
        try file.put("old")
        let escaped = try file.withLock(exclusive: true) { $0 }
        expectMSALError(.internalErrorUnexpected, mentioning: ["after"]) { _ = try escaped.read() }
        expectMSALError(.internalErrorUnexpected, mentioning: ["after"]) { _ = try escaped.write([1]) }
        expectMSALError(.internalErrorUnexpected, mentioning: ["after"]) { _ = try escaped.stamp() }
        expectMSALError(.internalErrorUnexpected, mentioning: ["after"]) { _ = try escaped.quarantine(reason: "x") }
        #expect(try file.get() == "old")
    }

    @Test("Each withLock call opens its own lock: nested exclusive calls exclude each other, shared ones do not")
    func nesting() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try TokenCacheFile(path: scratch.file(), options: TokenCacheFileOptions(lockTimeout: 0))
        let other = try TokenCacheFile(path: scratch.file(), options: TokenCacheFileOptions(lockTimeout: 0))
        try file.withLock(exclusive: true) { _ in
            expectMSALError(.cacheLockTimeout, mentioning: [file.lockPath, "exclusive"]) {
                try file.withLock(exclusive: true) { _ in }
            }
            expectMSALError(.cacheLockTimeout, mentioning: [file.lockPath, "shared"]) {
                try other.withLock(exclusive: false) { _ in }
            }
        }
        try file.withLock(exclusive: false) { _ in
            let bytes = try other.withLock(exclusive: false) { try $0.read() }
            #expect(bytes == nil)
            expectMSALError(.cacheLockTimeout) { try other.withLock(exclusive: true) { _ in } }
        }
        // Released afterwards.
        try file.withLock(exclusive: true) { _ in }
    }

    @Test("The body's result and errors pass through, and the lock is released after a throw")
    func bodyErrors() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try TokenCacheFile(path: scratch.file(), options: TokenCacheFileOptions(lockTimeout: 0))
        #expect(try file.withLock(exclusive: true) { _ in 42 } == 42)
        #expect(throws: HookFailure.self) {
            try file.withLock(exclusive: true) { _ in throw HookFailure() }
        }
        try file.withLock(exclusive: true) { _ in }
    }

    @Test(
        "Paths that are not absolute or name no file are cacheLocationUnavailable",
        arguments: [
            "", "token_cache.json", "./token_cache.json", "~/.cache/msal/token_cache.json", "/tmp/msal/", "/", "/tmp/..",
            "/tmp/.", "/tmp/a\u{0}b",
        ])
    func badPaths(_ path: String) {
        expectMSALError(.cacheLocationUnavailable) { _ = try TokenCacheFile(path: path) }
    }

    @Test("A file at the root directory is accepted")
    func rootPath() throws {
        let file = try TokenCacheFile(path: "/token_cache.json")
        #expect(file.path == "/token_cache.json")
        #expect(file.lockPath == "/token_cache.json.lock")
    }

    @Test("Unusable options are invalidParameter")
    func badOptions() {
        var options: [TokenCacheFileOptions] = []
        for change in 0..<5 {
            var option = TokenCacheFileOptions()
            switch change {
            case 0: option.lockTimeout = -1
            case 1: option.lockTimeout = .nan
            case 2: option.maximumFileSize = 0
            case 3: option.lockFileSuffix = "/lock"
            default: option.lockFileSuffix = ""
            }
            options.append(option)
        }
        for option in options {
            expectMSALError(.internalErrorInvalidParameter, mentioning: ["/tmp/x.json"]) {
                _ = try TokenCacheFile(path: "/tmp/x.json", options: option)
            }
        }
    }
}
