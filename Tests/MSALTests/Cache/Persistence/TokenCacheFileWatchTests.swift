import Foundation
import Glibc
import Testing

@testable import MSAL

/// Reads answered from memory once the cache file is watched (`TokenCacheFileWatcher`): the watch
/// starts after enough reads, and every kind of change another writer makes is still seen.
@Suite("Token cache file watched for changes")
struct TokenCacheFileWatchTests {
    static func cache(_ path: String, watchAfterReads: Int? = 4) throws -> TokenCache {
        var config = MSALCacheConfig(storage: .file(path: path))
        var options = TokenCacheFileOptions()
        options.watchAfterReads = watchAfterReads
        config.fileOptions = options
        return try TokenCache(config: config)
    }

    static func identifiers(_ cache: TokenCache) throws -> Set<String> {
        Set(
            try cache.accounts(clientID: "client", environment: nil, signedInOnly: true, memo: TokenCacheAccountMemo()).compactMap(
                \.identifier))
    }

    /// Reads `cache` until the watch is on, failing after `reads` reads.
    static func warm(_ cache: TokenCache, reads: Int = 20) throws {
        for _ in 0..<reads where cache.file?.isWatched != true { _ = try identifiers(cache) }
        #expect(cache.file?.isWatched == true, "the file was not watched after \(reads) reads")
        // The read that started the watch came before it: one more vouches for the contents.
        _ = try identifiers(cache)
    }

    /// Polls `condition` for up to five seconds (the watch thread sees an event within microseconds;
    /// the margin is for a loaded machine).
    static func eventually(_ condition: () throws -> Bool) throws -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if try condition() { return true }
            usleep(1_000)
        }
        return try condition()
    }

    @Test("The watch starts after the set number of reads answered from memory, and not before")
    func startsAfterThreshold() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let cache = try Self.cache(scratch.file(), watchAfterReads: 6)
        try TokenCacheFileBackedTests.save(cache, "alice")
        for _ in 0..<5 { _ = try Self.identifiers(cache) }
        #expect(cache.file?.isWatched == false)
        _ = try Self.identifiers(cache)
        #expect(cache.file?.isWatched == true)
        #expect(try Self.identifiers(cache) == ["alice.tenant"])
    }

    @Test("Without a threshold the file is never watched")
    func neverWatched() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let cache = try Self.cache(scratch.file(), watchAfterReads: nil)
        try TokenCacheFileBackedTests.save(cache, "alice")
        for _ in 0..<100 { _ = try Self.identifiers(cache) }
        #expect(cache.file?.isWatched == false)
        #expect(cache.file?.watchedGeneration == nil)
    }

    @Test("Reading does not move the generation: a thousand reads after the watch started see one")
    func readsDoNotMoveGeneration() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let cache = try Self.cache(scratch.file())
        try TokenCacheFileBackedTests.save(cache, "alice")
        try Self.warm(cache)
        let generation = try #require(cache.file?.watchedGeneration)
        for _ in 0..<1_000 { #expect(try Self.identifiers(cache) == ["alice.tenant"]) }
        #expect(cache.file?.watchedGeneration == generation)
        // The reads were answered on the watch's word: the contents are vouched for at this generation.
        #expect(cache.state.withLock { $0.watchedGeneration } == generation)
    }

    @Test("Another cache object's write (a rename over the file) is seen by the watched reader")
    func renameSeen() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let reader = try Self.cache(scratch.file())
        let writer = try Self.cache(scratch.file(), watchAfterReads: nil)
        try TokenCacheFileBackedTests.save(writer, "alice")
        try Self.warm(reader)
        let before = try #require(reader.file?.watchedGeneration)
        try TokenCacheFileBackedTests.save(writer, "bob")
        #expect(try Self.eventually { try Self.identifiers(reader) == ["alice.tenant", "bob.tenant"] })
        // The reader may have seen it through its `lstat` before the watch thread read the event.
        #expect(try Self.eventually { reader.file?.watchedGeneration.map { $0 != before } == true })
    }

    @Test("A file rewritten in place (as msal-extensions writes it), removed, then written again: each change is seen")
    func inPlaceAndRemoval() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.file()
        let reader = try Self.cache(path)
        let writer = try Self.cache(path, watchAfterReads: nil)
        try TokenCacheFileBackedTests.save(writer, "alice")
        try Self.warm(reader)
        let other = scratch.file("other.json")
        let otherCache = try Self.cache(other, watchAfterReads: nil)
        try TokenCacheFileBackedTests.save(otherCache, "carol")
        // In place: the same inode truncated and written, no rename.
        let inode = try #require(RawFile.status(path)).st_ino
        try RawFile.write(path, try #require(RawFile.text(other)))
        #expect(RawFile.status(path)?.st_ino == inode)
        #expect(try Self.eventually { try Self.identifiers(reader) == ["carol.tenant"] })
        // Removed: the cache reads as empty.
        #expect(unlink(path) == 0)
        #expect(try Self.eventually { try Self.identifiers(reader).isEmpty })
        // Written again by another object.
        try TokenCacheFileBackedTests.save(writer, "dave")
        #expect(try Self.eventually { try Self.identifiers(reader) == ["dave.tenant"] })
    }

    @Test("A change to another file in the directory (the lock file, another cache) does not move the generation")
    func otherNamesIgnored() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let reader = try Self.cache(scratch.file())
        try TokenCacheFileBackedTests.save(reader, "alice")
        try Self.warm(reader)
        let generation = try #require(reader.file?.watchedGeneration)
        let other = try Self.cache(scratch.file("other.json"), watchAfterReads: nil)
        try TokenCacheFileBackedTests.save(other, "bob")
        // The reader's own shared lock opens and closes its lock file on each read that goes to the file.
        usleep(50_000)
        #expect(reader.file?.watchedGeneration == generation)
        #expect(try Self.identifiers(reader) == ["alice.tenant"])
    }

    @Test("The directory moved away: the watch is lost, and reads check the file again (and see it gone)")
    func directoryMoved() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.file("cache")
        #expect(mkdir(directory, 0o700) == 0)
        let path = directory + "/token_cache.json"
        let reader = try Self.cache(path)
        try TokenCacheFileBackedTests.save(reader, "alice")
        try Self.warm(reader)
        #expect(rename(directory, scratch.file("moved")) == 0)
        #expect(try Self.eventually { reader.file?.watchedGeneration == nil })
        // The read goes to the path (creating the directory again, as a first read does).
        #expect(try Self.identifiers(reader).isEmpty)
        // A new cache in the old place is read from the file.
        let writer = try Self.cache(path, watchAfterReads: nil)
        try TokenCacheFileBackedTests.save(writer, "bob")
        #expect(try Self.identifiers(reader) == ["bob.tenant"])
    }

    @Test("Two caches of one directory share its kernel watch: dropping one leaves the other watching")
    func sharedDirectoryWatch() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.file()
        let kept = try Self.cache(path)
        let writer = try Self.cache(path, watchAfterReads: nil)
        try TokenCacheFileBackedTests.save(writer, "alice")
        try Self.warm(kept)
        do {
            let dropped = try Self.cache(path)
            try Self.warm(dropped)
        }
        let generation = try #require(kept.file?.watchedGeneration)
        try TokenCacheFileBackedTests.save(writer, "bob")
        #expect(try Self.eventually { (kept.file?.watchedGeneration ?? generation) != generation })
        #expect(try Self.identifiers(kept) == ["alice.tenant", "bob.tenant"])
    }

    @Test("Many readers and a writer at once: every reader ends with the writer's last change")
    func concurrentReaders() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.file()
        let writer = try Self.cache(path, watchAfterReads: nil)
        try TokenCacheFileBackedTests.save(writer, "user0")
        let readers = try (0..<4).map { _ in try Self.cache(path) }
        for reader in readers { try Self.warm(reader) }
        await withTaskGroup(of: Void.self) { group in
            for reader in readers {
                group.addTask {
                    for _ in 0..<2_000 { _ = try? Self.identifiers(reader) }
                }
            }
            group.addTask {
                for index in 1...20 { try? TokenCacheFileBackedTests.save(writer, "user\(index)") }
            }
        }
        let expected = Set((0...20).map { "user\($0).tenant" })
        for reader in readers {
            #expect(try Self.eventually { try Self.identifiers(reader) == expected })
        }
    }
}
