import Foundation
import Glibc
import Testing

@testable import MSAL

/// The token cache over the built-in file: several processes, a corrupt file, a newer writer.
@Suite("Token cache on a file shared between processes", .serialized)
struct TokenCacheFileBackedTests {
    static func response(_ uid: String, accessToken: String? = nil) throws -> TokenResponse {
        TokenResponse(
            accessToken: accessToken ?? "at-\(uid)", expiresIn: 3600, refreshToken: "rt-\(uid)",
            idToken: try CacheFixtures.unsignedJWT(["oid": uid, "tid": "tenant", "sub": uid, "preferred_username": "\(uid)@example.com"]),
            clientInfo: CacheFixtures.clientInfo(uid: uid, utid: "tenant"), scope: "User.Read")
    }

    static func save(_ cache: TokenCache, _ uid: String, client: String = "client") throws {
        let entries = try TokenCacheEntries(
            response: try response(uid),
            context: TokenCacheWriteContext(
                clientID: client, environment: "login.windows.net", authorityTenant: "tenant", requestedScopes: ["User.Read"], now: 1_000))
        try cache.write(clientID: client) { $0.save(entries, clientID: client) }
    }

    static func cache(_ path: String) throws -> TokenCache {
        try TokenCache(config: MSALCacheConfig(storage: .file(path: path)))
    }

    @Test("Two processes writing 1,000 times each through the token cache: no lost update, no corruption")
    func twoProcessesCounting() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.file()
        let workers = try ["a", "b"].map { try StressWorker.start(["cache-count", path, "1000", $0], watchdogSeconds: 600) }
        for worker in workers {
            let outcome = await worker.finish()
            #expect(outcome.status == 0, "worker failed: \(outcome.standardError)")
        }
        let contents = TokenCacheContents(document: try TokenCacheDocument(parsing: [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))))
        for tag in ["a", "b"] {
            let refresh = contents.refreshToken(homeAccountID: "\(tag).tenant", environment: "login.windows.net", clientID: "stress-client")
            #expect(refresh?.entry["secret"] == "1000", "\(tag)")
            let token = contents.accessToken(
                homeAccountID: "\(tag).tenant", environment: "login.microsoftonline.com", clientID: "stress-client", realms: ["tenant"],
                scopes: ["user.read"], now: Int64(Date().timeIntervalSince1970), expiryBuffer: 300)
            #expect(token?.secret == "at-\(tag)-1000")
        }
        #expect(contents.document[.accessToken].count == 2)
    }

    @Test("Two processes adding 200 accounts each through the token cache: all 400 present")
    func twoProcessesAdding() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.file()
        let workers = try ["a", "b"].map { try StressWorker.start(["cache-save", path, "200", $0], watchdogSeconds: 600) }
        for worker in workers {
            let outcome = await worker.finish()
            #expect(outcome.status == 0, "worker failed: \(outcome.standardError)")
        }
        let document = try TokenCacheDocument(parsing: [UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(document[.account].count == 400)
        #expect(document[.refreshToken].count == 400)
        let reader = try Self.cache(path)
        let accounts = try await reader.accounts(
            clientID: "stress-client", environment: nil, signedInOnly: true, memo: TokenCacheAccountMemo())
        let identifiers = Set(accounts.compactMap(\.identifier))
        for tag in ["a", "b"] {
            for index in 0..<200 {
                #expect(identifiers.contains("\(tag)-\(index).tenant"), "lost \(tag)-\(index)")
            }
        }
    }

    @Test("Another process's change is seen at the next operation; ours never overwrites it")
    func sharedAcrossInstances() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let one = try Self.cache(scratch.file())
        let two = try Self.cache(scratch.file())
        try Self.save(one, "alice")
        try Self.save(two, "bob")
        try Self.save(one, "carol")
        for cache in [one, two] {
            let accounts = try cache.accounts(clientID: "client", environment: nil, signedInOnly: true, memo: TokenCacheAccountMemo())
            #expect(Set(accounts.compactMap(\.identifier)) == ["alice.tenant", "bob.tenant", "carol.tenant"])
        }
    }

    @Test("A corrupt cache file: typed error, file moved aside, the next operation starts empty and works")
    func corruptFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let cache = try Self.cache(scratch.file())
        try Self.save(cache, "alice")
        // The last one nests beyond the reader's depth cap: it was cacheTooLarge and never moved
        // aside, so every command failed until someone deleted the file (issue 19, finding 4).
        let tooDeep = "{\"Future\": " + String(repeating: "[", count: 200) + String(repeating: "]", count: 200) + "}"
        for garbage in ["{\"AccessToken\": {\"k\": ", "not json", "[1,2,3]", "{\"AccessToken\": []}", tooDeep] {
            try RawFile.write(scratch.file(), garbage)
            let error = try #require(throws: MSALFailure.self) {
                _ = try cache.read(clientID: "client") { $0.document.entryCount }
            }
            #expect(error.internalCode == .cacheCorrupt, "\(garbage)")
            #expect(error.message.contains(".corrupt-"))
            #expect(scratch.names().contains { $0.hasPrefix("token_cache.json.corrupt-") })
            #expect(try cache.read(clientID: "client") { $0.document.entryCount } == 0)
            try Self.save(cache, "bob")
            #expect(try cache.read(clientID: "client") { $0.document[.account].count } == 1)
        }
        let moved = scratch.names().filter { $0.hasPrefix("token_cache.json.corrupt-") }
        #expect(moved.count == 5)
        #expect(moved.contains { (RawFile.text(scratch.file($0)) ?? "") == "not json" })
    }

    @Test("A document from a newer writer keeps its unknown sections and fields through our update")
    func newerWriter() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let future = try CacheFixtures.bytes("documents", "dotnet_CacheFromTheFuture.json")
        try RawFile.write(scratch.file(), String(decoding: future, as: UTF8.self))
        let cache = try Self.cache(scratch.file())
        try Self.save(cache, "alice")
        let written = try CacheFixtures.foundationJSON([UInt8](Data(contentsOf: URL(fileURLWithPath: scratch.file()))))
        let original = try CacheFixtures.foundationJSON(future)
        for name in original.keys where !CacheFixtures.sections.contains(name) {
            #expect(CacheFixtures.equal(written[name] as Any, original[name] as Any), "\(name) lost")
        }
        for section in CacheFixtures.sections {
            let before = (original[section] as? [String: Any])?.count ?? 0
            let after = (written[section] as? [String: Any])?.count ?? 0
            #expect(after >= before, "\(section) shrank")
        }
        #expect(RawFile.mode(scratch.file()).map { $0 & 0o777 } == 0o600)
    }

    @Test("Serialization hooks: load before, store after only when changed; a throwing hook is a typed error")
    func hooks() throws {
        final class Store: MSALTokenCacheSerializer, @unchecked Sendable {
            // Test double: touched only by the cache's hook calls, which run one at a time.
            var data = Data()
            var stores = 0
            var accesses: [(write: Bool, changed: Bool)] = []
            var failBefore = false
            func beforeAccess(_ access: MSALTokenCacheAccess) throws {
                if failBefore { throw CocoaError(.fileReadUnknown) }
                try access.deserialize(data)
            }
            func afterAccess(_ access: MSALTokenCacheAccess) throws {
                accesses.append((access.isWrite, access.hasStateChanged))
                if access.hasStateChanged {
                    data = access.serialize()
                    stores += 1
                }
            }
        }
        let store = Store()
        let cache = try TokenCache(config: MSALCacheConfig(storage: .custom(store)))
        try Self.save(cache, "alice")
        #expect(store.stores == 1)
        #expect(try cache.read(clientID: "client") { $0.document[.account].count } == 1)
        #expect(store.stores == 1)
        #expect(store.accesses.map(\.write) == [true, false])
        #expect(store.accesses.map(\.changed) == [true, false])

        // What the app stores is the unified format; a second application loads it through its hook.
        let other = Store()
        other.data = store.data
        let second = try TokenCache(config: MSALCacheConfig(storage: .custom(other)))
        #expect(try second.accounts(clientID: "client", environment: nil, signedInOnly: true, memo: TokenCacheAccountMemo()).count == 1)

        store.failBefore = true
        let error = try #require(throws: MSALFailure.self) { _ = try cache.read(clientID: "client") { $0.revision } }
        #expect(error.internalCode == .cacheHookFailed)
        store.failBefore = false
        store.data = Data("garbage".utf8)
        let corrupt = try #require(throws: MSALFailure.self) { _ = try cache.read(clientID: "client") { $0.revision } }
        #expect(corrupt.internalCode == .cacheHookFailed)
        #expect(corrupt.message.contains("not valid JSON"))
    }

    @Test("Many tasks saving and reading one in-memory cache at once: every save lands")
    func concurrentTasks() async throws {
        let cache = TokenCache()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<500 {
                group.addTask {
                    try Self.save(cache, "user\(index)")
                    _ = try cache.accounts(clientID: "client", environment: nil, signedInOnly: true, memo: TokenCacheAccountMemo())
                }
            }
            try await group.waitForAll()
        }
        await #expect(try cache.read(clientID: "client") { $0.document[.account].count } == 500)
    }
}
