import Foundation
import Glibc
import MSAL
import Testing

@Suite("Token cache file: unsafe files are refused and left untouched")
struct TokenCacheFileSafetyTests {
    /// Read, stamp and write all refuse the file with `cacheUnsafeFile` mentioning `fragment`.
    func expectRefused(_ file: TokenCacheFile, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try file.withLock(exclusive: true) { access in
            expectMSALError(.cacheUnsafeFile, mentioning: [file.path, fragment], sourceLocation: sourceLocation) { _ = try access.read() }
            expectMSALError(.cacheUnsafeFile, mentioning: [file.path, fragment], sourceLocation: sourceLocation) { _ = try access.stamp() }
            expectMSALError(.cacheUnsafeFile, mentioning: [file.path, fragment], sourceLocation: sourceLocation) {
                _ = try access.write(Array("replacement".utf8))
            }
        }
    }

    @Test("A symlink at the cache path is refused; the link and its target are untouched")
    func symlinkAtPath() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let target = scratch.file("elsewhere.json")
        try RawFile.write(target, "target content", mode: 0o600)
        #expect(symlink(target, scratch.file()) == 0)
        try expectRefused(try TokenCacheFile(path: scratch.file()), "symbolic link")
        #expect(RawFile.isSymlink(scratch.file()))
        #expect(RawFile.text(target) == "target content")
        #expect(RawFile.mode(target) == 0o600)
        #expect(scratch.names() == ["elsewhere.json", "token_cache.json", "token_cache.json.lock"])
    }

    @Test("A dangling symlink at the cache path is refused, and nothing is created at its target")
    func danglingSymlink() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        #expect(symlink(scratch.file("victim"), scratch.file()) == 0)
        try expectRefused(try TokenCacheFile(path: scratch.file()), "symbolic link")
        #expect(RawFile.status(scratch.file("victim")) == nil)
    }

    @Test(
        "Group or other permission bits are refused, not silently fixed",
        arguments: [0o644, 0o640, 0o604, 0o660, 0o666, 0o601] as [mode_t])
    func permissions(_ mode: mode_t) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try RawFile.write(scratch.file(), "old", mode: mode)
        try expectRefused(try TokenCacheFile(path: scratch.file()), "mode 0\(String(mode, radix: 8))")
        #expect(RawFile.mode(scratch.file()) == mode)
        #expect(RawFile.text(scratch.file()) == "old")
    }

    @Test("Owner-only modes other than 0600 are accepted", arguments: [0o400, 0o600, 0o700] as [mode_t])
    func ownerOnlyModes(_ mode: mode_t) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try RawFile.write(scratch.file(), "old", mode: mode)
        let file = try TokenCacheFile(path: scratch.file())
        #expect(try file.get() == "old")
        try file.put("new")
        #expect(try file.get() == "new")
        #expect(RawFile.mode(scratch.file()) == 0o600)
    }

    @Test("A file owned by another user is refused", .enabled(if: runningAsRoot, "chown needs root"))
    func foreignOwner() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try RawFile.write(scratch.file(), "daemon's", mode: 0o600)
        #expect(chown(scratch.file(), 1, 1) == 0)
        try expectRefused(try TokenCacheFile(path: scratch.file()), "uid 1")
        #expect(RawFile.status(scratch.file())?.st_uid == 1)
        #expect(RawFile.text(scratch.file()) == "daemon's")
    }

    @Test("A directory owned by another user is refused", .enabled(if: runningAsRoot, "chown needs root"))
    func foreignDirectory() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.path + "/theirs"
        #expect(mkdir(directory, 0o700) == 0)
        #expect(chown(directory, 1, 1) == 0)
        let file = try TokenCacheFile(path: directory + "/token_cache.json")
        expectMSALError(.cacheUnsafeFile, mentioning: [file.path, "uid 1"]) { _ = try file.get() }
        #expect(scratch.names(directory).isEmpty)
    }

    @Test("A directory writable by everyone is refused unless it has the sticky bit")
    func worldWritableDirectory() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try TokenCacheFile(path: scratch.file())
        #expect(chmod(scratch.path, 0o777) == 0)
        expectMSALError(.cacheUnsafeFile, mentioning: [scratch.path, "writable by everyone", "0777"]) { try file.put("x") }
        #expect(scratch.names().isEmpty)
        #expect(chmod(scratch.path, 0o1777) == 0)
        try file.put("x")
        #expect(try file.get() == "x")
    }

    @Test("A file with a second hard link is refused")
    func hardLink() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try TokenCacheFile(path: scratch.file())
        try file.put("old")
        #expect(link(scratch.file(), scratch.file("other-name")) == 0)
        try expectRefused(file, "2 hard links")
        #expect(RawFile.text(scratch.file("other-name")) == "old")
    }

    @Test("A directory or a FIFO at the cache path is refused without blocking")
    func notRegular() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        #expect(mkdir(scratch.file(), 0o700) == 0)
        try expectRefused(try TokenCacheFile(path: scratch.file()), "not a regular file")
        let fifo = scratch.file("fifo.json")
        #expect(mkfifo(fifo, 0o600) == 0)
        try expectRefused(try TokenCacheFile(path: fifo), "not a regular file")
    }

    @Test("A symlink or a directory at the lock path is refused; the symlink's target is not created")
    func unsafeLockFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try TokenCacheFile(path: scratch.file())
        #expect(symlink(scratch.file("victim"), file.lockPath) == 0)
        expectMSALError(.cacheUnsafeFile, mentioning: [file.lockPath, "symbolic link"]) { try file.put("x") }
        expectMSALError(.cacheUnsafeFile, mentioning: [file.lockPath, "symbolic link"]) { _ = try file.get() }
        #expect(RawFile.status(scratch.file("victim")) == nil)
        #expect(unlink(file.lockPath) == 0)
        #expect(mkdir(file.lockPath, 0o700) == 0)
        expectMSALError(.cacheUnsafeFile, mentioning: [file.lockPath, "directory"]) { try file.put("x") }
        expectMSALError(.cacheUnsafeFile, mentioning: [file.lockPath, "directory"]) { _ = try file.get() }
        #expect(RawFile.status(scratch.file()) == nil)
    }

    @Test("A leftover lock file with foreign content and mode is fine, and keeps its content")
    func garbageLockFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try TokenCacheFile(path: scratch.file())
        try RawFile.write(file.lockPath, "12345 /usr/bin/python3 \u{0}\u{FF}garbage", mode: 0o644)
        try file.put("new")
        #expect(try file.get() == "new")
        #expect(RawFile.text(file.lockPath) == "12345 /usr/bin/python3 \u{0}\u{FF}garbage")
    }

    @Test("Over the size limit is cacheTooLarge for reads and writes; the limit itself is fine")
    func tooLarge() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try TokenCacheFile(path: scratch.file(), options: TokenCacheFileOptions(maximumFileSize: 16))
        try file.put(String(repeating: "a", count: 16))
        #expect(try file.get()?.count == 16)
        expectMSALError(.cacheTooLarge, mentioning: [file.path, "17 bytes", "16 bytes"]) {
            try file.put(String(repeating: "b", count: 17))
        }
        #expect(try file.get() == String(repeating: "a", count: 16))
        try RawFile.write(scratch.file(), String(repeating: "c", count: 1_000), mode: 0o600)
        expectMSALError(.cacheTooLarge, mentioning: [file.path, "1000 bytes"]) { _ = try file.get() }
        #expect(RawFile.text(scratch.file())?.count == 1_000)
    }
}
