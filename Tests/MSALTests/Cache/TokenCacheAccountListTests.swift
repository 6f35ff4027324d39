import Foundation
import Testing

@testable import MSAL

/// The account list remembered per query is brought up to date from the accounts a change touched:
/// it always equals a list built from scratch, and accounts no change touched keep their objects.
@Suite("Token cache account list, kept up to date incrementally")
struct TokenCacheAccountListTests {
    typealias Support = TokenCacheContentsTests

    static let query = TokenCacheAccountMemo.Query(clientID: Support.client, environment: nil, signedInOnly: true)

    /// Everything an account shows, in one comparable string.
    static func describe(_ account: MSALAccount) -> String {
        let profiles = (account.tenantProfiles ?? []).map {
            "\($0.identifier),\($0.tenantId),\($0.isHomeTenantProfile),\($0.idToken ?? "-")"
        }
        return "\(account.identifier ?? "")|\(account.username ?? "")|\(account.environment)|\(profiles.joined(separator: ";"))"
    }

    static func describe(_ accounts: [MSALAccount]) -> [String] {
        accounts.map(describe).sorted()
    }

    /// The list as a full build from the contents shows it.
    static func rebuilt(_ contents: TokenCacheContents, _ query: TokenCacheAccountMemo.Query = query) -> [String] {
        describe(contents.accounts(clientID: query.clientID, environment: query.environment, signedInOnly: query.signedInOnly))
    }

    static func contents(uids: [String]) throws -> TokenCacheContents {
        var contents = TokenCacheContents()
        for uid in uids {
            try Support.save(&contents, Support.response(uid: uid, accessToken: "at-\(uid)", username: "\(uid)@contoso.com"))
        }
        return contents
    }

    static func byIdentifier(_ accounts: [MSALAccount]) -> [String: MSALAccount] {
        Dictionary(uniqueKeysWithValues: accounts.map { ($0.identifier ?? "", $0) })
    }

    static func identifier(_ uid: String) -> String { "\(uid).\(Support.homeTenant)" }

    @Test("After a save for one account, the first list shows the change and every other account keeps its object")
    func saveOneAccount() throws {
        var contents = try Self.contents(uids: ["a", "b", "c"])
        let memo = TokenCacheAccountMemo()
        let before = Self.byIdentifier(memo.accounts(Self.query, contents: contents))
        #expect(before.count == 3)
        try Support.save(&contents, Support.response(uid: "a", accessToken: "at-a2", username: "renamed@contoso.com"))
        let afterList = memo.accounts(Self.query, contents: contents)
        let after = Self.byIdentifier(afterList)
        #expect(after[Self.identifier("a")]?.username == "renamed@contoso.com")
        #expect(after[Self.identifier("a")] !== before[Self.identifier("a")])
        #expect(after[Self.identifier("b")] === before[Self.identifier("b")])
        #expect(after[Self.identifier("c")] === before[Self.identifier("c")])
        #expect(Self.describe(afterList) == Self.rebuilt(contents))
        // No change: the same list.
        #expect(memo.accounts(Self.query, contents: contents).map(ObjectIdentifier.init) == afterList.map(ObjectIdentifier.init))
        // Two accounts changed between two lists: both show their change, the third keeps its object.
        try Support.save(&contents, Support.response(uid: "b", username: "b2@contoso.com"))
        try Support.save(&contents, Support.response(uid: "c", username: "c2@contoso.com"))
        let twice = Self.byIdentifier(memo.accounts(Self.query, contents: contents))
        #expect(twice[Self.identifier("b")]?.username == "b2@contoso.com")
        #expect(twice[Self.identifier("c")]?.username == "c2@contoso.com")
        #expect(twice[Self.identifier("a")] === after[Self.identifier("a")])
    }

    @Test("Removing an account takes it out of the list, a new account joins it, the others keep their objects")
    func removeAndAdd() throws {
        var contents = try Self.contents(uids: ["a", "b", "c", "d"])
        let memo = TokenCacheAccountMemo()
        let before = Self.byIdentifier(memo.accounts(Self.query, contents: contents))
        #expect(
            contents.removeAccount(
                homeAccountID: Self.identifier("b").uppercased(), environment: "login.microsoftonline.com", clientID: Support.client) == 4)
        let removed = memo.accounts(Self.query, contents: contents)
        #expect(Set(removed.compactMap(\.identifier)) == Set(["a", "c", "d"].map(Self.identifier)))
        for uid in ["a", "c", "d"] { #expect(Self.byIdentifier(removed)[Self.identifier(uid)] === before[Self.identifier(uid)]) }
        try Support.save(&contents, Support.response(uid: "e", username: "e@contoso.com"))
        let added = memo.accounts(Self.query, contents: contents)
        #expect(Self.describe(added) == Self.rebuilt(contents))
        #expect(Self.byIdentifier(added)[Self.identifier("e")]?.username == "e@contoso.com")
        // The last account (moved into the removed one's place) is still listed once.
        #expect(added.count == 4)
    }

    @Test("Removing an account's last credential of this client only: the account entry stays for the other client")
    func removeKeepsSharedAccount() throws {
        var contents = try Self.contents(uids: ["a", "b"])
        try Support.save(&contents, Support.response(uid: "a"), Support.context(client: Support.sibling))
        let memo = TokenCacheAccountMemo()
        let sibling = TokenCacheAccountMemo.Query(clientID: Support.sibling, environment: nil, signedInOnly: true)
        _ = memo.accounts(Self.query, contents: contents)
        let siblingBefore = memo.accounts(sibling, contents: contents)
        contents.removeAccount(homeAccountID: Self.identifier("a"), environment: "login.windows.net", clientID: Support.client)
        #expect(memo.accounts(Self.query, contents: contents).compactMap(\.identifier) == [Self.identifier("b")])
        let siblingAfter = memo.accounts(sibling, contents: contents)
        #expect(Self.describe(siblingAfter) == Self.rebuilt(contents, sibling))
        #expect(siblingAfter.count == 1)
        #expect(Self.describe(siblingBefore) == Self.describe(siblingAfter))
        #expect(contents.document[.account].count == 2)
    }

    @Test("Learning the client's family from app metadata changes which accounts it lists: the list follows")
    func familyLearned() throws {
        var contents = try Self.contents(uids: ["a"])
        // Account f is signed in to a sibling app of family 1 only.
        try Support.save(&contents, Support.response(uid: "f", refreshToken: "frt", foci: "1"), Support.context(client: Support.sibling))
        let memo = TokenCacheAccountMemo()
        #expect(memo.accounts(Self.query, contents: contents).compactMap(\.identifier) == [Self.identifier("a")])
        // Now this client learns it is in family 1 (its own FOCI response for account a).
        try Support.save(&contents, Support.response(uid: "a", refreshToken: "frt-a", foci: "1"))
        let listed = memo.accounts(Self.query, contents: contents)
        #expect(Set(listed.compactMap(\.identifier)) == [Self.identifier("a"), Self.identifier("f")])
        #expect(Self.describe(listed) == Self.rebuilt(contents))
    }

    @Test("A new document (the file read again) and new alias groups rebuild the list")
    func replacedDocument() throws {
        var contents = try Self.contents(uids: ["a", "b"])
        let memo = TokenCacheAccountMemo()
        _ = memo.accounts(Self.query, contents: contents)
        let other = try Self.contents(uids: ["x"])
        contents.replaceDocument(other.document)
        #expect(memo.accounts(Self.query, contents: contents).compactMap(\.identifier) == [Self.identifier("x")])
        let environmentQuery = TokenCacheAccountMemo.Query(clientID: Support.client, environment: "contoso.example", signedInOnly: true)
        #expect(memo.accounts(environmentQuery, contents: contents).isEmpty)
        contents.addAliases(["contoso.example", "login.windows.net"], preferredCache: "contoso.example")
        #expect(memo.accounts(environmentQuery, contents: contents).compactMap(\.identifier) == [Self.identifier("x")])
    }

    @Test("One memo used with two caches never answers one with the other's accounts")
    func twoCaches() throws {
        let first = try Self.contents(uids: ["a"])
        let second = try Self.contents(uids: ["b"])
        let memo = TokenCacheAccountMemo()
        #expect(memo.accounts(Self.query, contents: first).compactMap(\.identifier) == [Self.identifier("a")])
        #expect(first.revision == second.revision)
        #expect(memo.accounts(Self.query, contents: second).compactMap(\.identifier) == [Self.identifier("b")])
    }

    @Test("Random saves, removals, reloads and more changes than the log keeps: every list equals a full build")
    func randomSequences() throws {
        var generator = CacheDocumentReaderTests.Generator(state: 4)
        let uids = (0..<12).map { "u\($0)" }
        let clients = [Support.client, Support.sibling]
        let queries = clients.flatMap { client in
            [nil, "login.microsoftonline.com", "login.microsoftonline.us"].flatMap { environment in
                [true, false].map { TokenCacheAccountMemo.Query(clientID: client, environment: environment, signedInOnly: $0) }
            }
        }
        var contents = TokenCacheContents()
        let memo = TokenCacheAccountMemo()
        for round in 0..<400 {
            let uid = uids.randomElement(using: &generator)!
            let client = clients.randomElement(using: &generator)!
            switch Int.random(in: 0..<10, using: &generator) {
            case 0...4:
                let guest = Bool.random(using: &generator)
                try Support.save(
                    &contents,
                    Support.response(
                        uid: uid, tid: guest ? Support.guestTenant : nil, accessToken: "at\(round)",
                        refreshToken: Bool.random(using: &generator) ? "rt\(round)" : nil,
                        foci: Int.random(in: 0..<4, using: &generator) == 0 ? "1" : nil, username: "\(uid)-\(round)@contoso.com"),
                    Support.context(client: client, tenant: guest ? Support.guestTenant : "common", now: 1_000_000 + Int64(round)))
            case 5, 6:
                contents.removeAccount(homeAccountID: "\(uid).\(Support.homeTenant)", environment: "login.windows.net", clientID: client)
            case 7:
                contents.removeAllEntries(homeAccountID: "\(uid).\(Support.homeTenant)", environment: nil)
            case 8:
                // More changes at once than the log remembers.
                for index in 0..<(TokenCacheChangeLog.capacity / 4 + 1) {
                    try Support.save(&contents, Support.response(uid: uids[index % uids.count], accessToken: "bulk\(index)"))
                }
            default:
                contents.replaceDocument(try TokenCacheDocument(parsing: contents.document.serialized()))
            }
            for query in queries.shuffled(using: &generator).prefix(3) {
                #expect(Self.describe(memo.accounts(query, contents: contents)) == Self.rebuilt(contents, query), "round \(round) \(query)")
            }
        }
    }

    @Test("Tasks saving different accounts while others list them: every list is consistent, the last one complete")
    func concurrentWritersAndReaders() async throws {
        let cache = TokenCache()
        let memo = TokenCacheAccountMemo()
        let writers = 6
        let perWriter = 20
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for index in 0..<perWriter {
                        let entries = try TokenCacheEntries(
                            response: Support.response(uid: "w\(writer)-\(index)", username: "w\(writer)-\(index)@contoso.com"),
                            context: Support.context())
                        try cache.write(clientID: Support.client) { $0.save(entries, clientID: Support.client) }
                        if index % 5 == 4 {
                            _ = try cache.write(clientID: Support.client) {
                                $0.removeAccount(
                                    homeAccountID: "w\(writer)-\(index - 1).\(Support.homeTenant)", environment: "login.windows.net",
                                    clientID: Support.client)
                            }
                        }
                    }
                }
            }
            for _ in 0..<3 {
                group.addTask {
                    for _ in 0..<60 {
                        let (listed, rebuilt) = try await cache.read(clientID: Support.client) { contents in
                            (Self.describe(memo.accounts(Self.query, contents: contents)), Self.rebuilt(contents))
                        }
                        #expect(listed == rebuilt)
                        #expect(Set(listed).count == listed.count)
                        await Task.yield()
                    }
                }
            }
            try await group.waitForAll()
        }
        let final = try await cache.accounts(clientID: Support.client, environment: nil, signedInOnly: true, memo: memo)
        #expect(final.count == writers * (perWriter - perWriter / 5))
        await #expect(try cache.read(clientID: Support.client) { Self.describe(final) == Self.rebuilt($0) })
    }

    @Test("The change log answers the accounts changed since a revision, or nil once it no longer knows")
    func changeLog() {
        var log = TokenCacheChangeLog(revision: 10)
        let a = TokenCacheIndex.AccountKey(home: "a", environment: "e")
        let b = TokenCacheIndex.AccountKey(home: "b", environment: "e")
        #expect(log.accounts(since: 10) == [])
        #expect(log.accounts(since: 9) == nil)
        log.record(a, revision: 11)
        log.record(b, revision: 12)
        #expect(log.accounts(since: 10) == [b, a])
        #expect(log.accounts(since: 11) == [b])
        #expect(log.accounts(since: 12) == [])
        for revision in 13..<(13 + TokenCacheChangeLog.capacity) { log.record(a, revision: revision) }
        #expect(log.accounts(since: 10) == nil)
        #expect(log.accounts(since: 12 + TokenCacheChangeLog.capacity - 1) == [a])
        log.recordEverything(revision: 1000)
        #expect(log.accounts(since: 999) == nil)
        #expect(log.accounts(since: 1000) == [])
    }
}
