import Foundation
import Glibc
import Testing

@testable import MSAL

@Suite("Proof keys kept beside the cache file: 0600, shared by every process, unsafe files refused, unusable ones replaced")
struct ProofKeyFileTests {
    /// A fresh directory and the cache path in it.
    static func folder() throws -> (URL, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-key-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (directory, directory.appendingPathComponent("cache.json").path)
    }

    @Test("The first use makes and keeps the key (mode 0600, no temporary file left); later uses read the same key")
    func keptAndRead() throws {
        let (directory, cache) = try Self.folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = ProofKeyFile(cachePath: cache, kind: .dpop)
        let made = try file.key()
        #expect(file.path == cache + ".dpop-key.pem")
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["cache.json.dpop-key.pem"])
        #expect(try file.key().thumbprint == made.thumbprint)
        #expect(try ProofKeys(cachePath: cache).key(.dpop).thumbprint == made.thumbprint)
        // Each kind has its own file.
        #expect(try ProofKeyFile(cachePath: cache, kind: .signedHTTPRequest).key().thumbprint != made.thumbprint)
    }

    @Test("Concurrent first uses agree on one key, also while the winner's temporary name is still linked (ten rounds)")
    func concurrentFirstUse() async throws {
        for _ in 0..<10 {
            let (directory, cache) = try Self.folder()
            defer { try? FileManager.default.removeItem(at: directory) }
            let thumbprints = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 { group.addTask { try ProofKeyFile(cachePath: cache, kind: .dpop).key().thumbprint } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(thumbprints.count == 1)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["cache.json.dpop-key.pem"])
        }
    }

    @Test("A second hard link that goes away within the wait (a publishing process's temporary name) is waited out")
    func passingHardLink() throws {
        let (directory, cache) = try Self.folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = ProofKeyFile(cachePath: cache, kind: .dpop)
        let made = try file.key()
        // The state another process's publish leaves for a moment: the key linked under its temporary name too.
        let temporary = file.path + ".tmp-1-abcdef"
        #expect(link(file.path, temporary) == 0)
        // A thread of its own, not the cooperative pool, which the blocking wait may hold.
        let unlinker = Thread {
            usleep(20_000)
            _ = unlink(temporary)
        }
        unlinker.start()
        #expect(try file.key().thumbprint == made.thumbprint)
        #expect(!FileManager.default.fileExists(atPath: temporary))
    }

    @Test("A second hard link that stays is refused after the wait, and the file is left as it was")
    func lastingHardLink() throws {
        let (directory, cache) = try Self.folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = ProofKeyFile(cachePath: cache, kind: .dpop)
        let made = try file.key()
        let other = directory.appendingPathComponent("elsewhere.pem").path
        #expect(link(file.path, other) == 0)
        let refused = #expect(throws: MSALFailure.self) { try file.key() }
        #expect(refused?.internalCode == .cacheUnsafeFile)
        #expect(refused?.message.contains("2 hard links") == true)
        #expect(
            try ProofKey(kind: .dpop, privateKeyPEM: Array(Data(contentsOf: URL(fileURLWithPath: file.path)))).thumbprint == made.thumbprint
        )
    }

    @Test("A file that holds no key of its kind is replaced by a new key; an unsafe file is a typed error and stays as it was")
    func unusableAndUnsafe() throws {
        let (directory, cache) = try Self.folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = ProofKeyFile(cachePath: cache, kind: .dpop)
        // Garbage, then a key of the other kind: both replaced.
        for content in [Data("not a key".utf8), Data(try ProofKey.generate(.signedHTTPRequest).privateKeyPEM())] {
            #expect(FileManager.default.createFile(atPath: file.path, contents: content, attributes: [.posixPermissions: 0o600]))
            let key = try file.key()
            #expect(
                try ProofKey(kind: .dpop, privateKeyPEM: Array(Data(contentsOf: URL(fileURLWithPath: file.path)))).thumbprint
                    == key.thumbprint)
            try FileManager.default.removeItem(atPath: file.path)
        }
        // Readable by others: refused, untouched.
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data("x".utf8), attributes: [.posixPermissions: 0o644]))
        let exposed = #expect(throws: MSALFailure.self) { try file.key() }
        #expect(exposed?.internalCode == .cacheUnsafeFile)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file.path)) == Data("x".utf8))
        try FileManager.default.removeItem(atPath: file.path)
        // A symbolic link: refused.
        try FileManager.default.createSymbolicLink(
            atPath: file.path, withDestinationPath: directory.appendingPathComponent("elsewhere").path)
        let linked = #expect(throws: MSALFailure.self) { try file.key() }
        #expect(linked?.internalCode == .cacheUnsafeFile)
    }
}
