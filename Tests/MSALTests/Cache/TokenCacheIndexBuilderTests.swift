import Testing

@testable import MSAL

/// The bulk index builder (what reading a document uses) against the index built one entry at a
/// time with ``TokenCacheIndex/insert(key:entry:section:aliases:)``: the same accounts, the same
/// items in the same order in each, the same families.
@Suite("Token cache index built in bulk")
struct TokenCacheIndexBuilderTests {
    /// Each account's items as text, in order (the order is part of the contract: lookups take the
    /// last matching item).
    static func describe(_ index: TokenCacheIndex) -> [String: [String]] {
        var accounts: [String: [String]] = [:]
        for (account, items) in index.accounts {
            accounts["\(Array(account.home.utf8)) \(account.environment)"] = items.map { item in
                "\(item.section) \(item.key) \(item.client) \(item.realm) \(item.isFamily) \(item.isExtended) \(item.target) "
                    + "\(item.scopes.sorted()) \(item.idToken?.value ?? "-") \(String(describing: item.scheme)) \(item.entry["secret"] ?? "-")"
            }
        }
        return accounts
    }

    /// A mix of everything the account key depends on: home ids in mixed case and with non-ASCII
    /// letters (only ASCII is folded), escaped or not; app tokens (home `null`, empty, missing) by
    /// realm; on-behalf-of tokens by assertion hash; aliased and unaliased clouds; entries missing
    /// what their section needs; opaque entries; AppMetadata.
    static func entries(accounts: Int, seed: UInt64) -> [(String, CacheEntry, CacheSection)] {
        var random = CacheDocumentReaderTests.Generator(state: seed)
        let clouds = ["login.microsoftonline.com", "login.windows.net", "LOGIN.Windows.NET", "login.microsoftonline.us", "Example.COM"]
        var entries: [(String, CacheEntry, CacheSection)] = []
        for number in 0..<accounts {
            let letters = ["a", "B", "é", "É", "z", "Q"]
            let stem = (0..<Int.random(in: 0...40, using: &random)).map { _ in letters.randomElement(using: &random)! }.joined()
            // Some homes repeat in another case, so two spellings land on one account.
            let home = number % 7 == 3 ? stem.uppercased() + "\(number - 1)" : stem + "\(number)"
            let cloud = clouds.randomElement(using: &random)!
            let realm = ["Tenant", "tenant", "common", ""].randomElement(using: &random)!
            let section = CacheSection.allCases.randomElement(using: &random)!
            var entry = CacheEntry([
                "home_account_id": home, "environment": cloud, "client_id": ["Client", "client", "other"].randomElement(using: &random)!,
                "secret": "secret-\(number)", "realm": realm, "target": ["a B", "b a", "c"].randomElement(using: &random)!,
                "family_id": ["1", "", nil].randomElement(using: &random)!, "username": "user\(number)",
            ])
            switch number % 11 {
            case 0: entry["home_account_id"] = nil
            case 1: entry["home_account_id"] = ""
            case 2: entry.members[0].value = .raw(Array("null".utf8))
            case 4: entry["user_assertion_hash"] = ["Hash", "hash", ""].randomElement(using: &random)!
            case 5: entry["client_id"] = nil
            case 6: entry["environment"] = nil
            case 8: entry = CacheEntry(opaque: Array("[1]".utf8))
            case 9: entry["ext_cache_key"] = "k"
            default: break
            }
            entries.append(("key-\(number)-\(home)", entry, section))
        }
        return entries
    }

    @Test("The bulk builder gives what inserting the entries one by one gives, in the same order, over table growth")
    func sameAsInserting() {
        for (accounts, seed) in [(1, 1), (40, 2), (700, 3), (3_000, 4)] as [(Int, UInt64)] {
            let entries = Self.entries(accounts: accounts, seed: seed)
            var inserted = TokenCacheIndex()
            // A builder told to expect nothing grows its table from the smallest size.
            for expected in [0, accounts] {
                var builder = TokenCacheIndexBuilder(aliases: .builtIn, expectedAccounts: expected)
                for (key, entry, section) in entries {
                    builder.add(key: key, entry: entry, section: section)
                }
                let built = builder.finish()
                if expected == 0 {
                    for (key, entry, section) in entries {
                        inserted.insert(key: key, entry: entry, section: section, aliases: .builtIn)
                    }
                }
                #expect(Self.describe(built) == Self.describe(inserted), "\(accounts) accounts")
                #expect(built.familyOfClient == inserted.familyOfClient)
                #expect(built.accounts.count == inserted.accounts.count)
            }
            // Lookups made with the keys the index was built with find the same items.
            #expect(inserted.accounts.count > 0 || accounts < 5)
        }
    }

    @Test("Homes equal but for ASCII case are one account; other letters are not folded; a marked key is compared as its text")
    func keyRules() throws {
        let entries: [(String, CacheEntry, CacheSection)] = [
            ("1", CacheEntry(["home_account_id": "Uid.Tid", "environment": "login.windows.net", "realm": "r"]), .account),
            ("2", CacheEntry(["home_account_id": "uid.tid", "environment": "login.microsoftonline.com", "realm": "r"]), .account),
            ("3", CacheEntry(["home_account_id": "Éa", "environment": "e", "realm": "r"]), .account),
            ("4", CacheEntry(["home_account_id": "éa", "environment": "e", "realm": "r"]), .account),
            (
                "5",
                CacheEntry([
                    "environment": "e", "client_id": "c", "secret": "s", "realm": "Contoso", "target": "x",
                ]), .accessToken
            ),
            (
                "6",
                CacheEntry([
                    "home_account_id": "\u{1}contoso", "environment": "e", "client_id": "c", "secret": "s", "realm": "r", "target": "x",
                ]), .accessToken
            ),
            (
                "7",
                CacheEntry([
                    "home_account_id": "h", "environment": "e", "client_id": "c", "secret": "s", "user_assertion_hash": "AbC",
                    "target": "x",
                ]), .accessToken
            ),
        ]
        var builder = TokenCacheIndexBuilder(aliases: .builtIn)
        var inserted = TokenCacheIndex()
        for (key, entry, section) in entries {
            builder.add(key: key, entry: entry, section: section)
            inserted.insert(key: key, entry: entry, section: section, aliases: .builtIn)
        }
        let built = builder.finish()
        #expect(Self.describe(built) == Self.describe(inserted))
        let group = CacheEnvironmentAliases.builtIn.group(of: "login.windows.net")
        #expect(built.accounts[TokenCacheIndex.AccountKey(home: "uid.tid", environment: group)]?.map(\.key) == ["1", "2"])
        #expect(built.accounts[TokenCacheIndex.AccountKey(home: "Éa", environment: "e")]?.map(\.key) == ["3"])
        #expect(built.accounts[TokenCacheIndex.AccountKey(home: "éa", environment: "e")]?.map(\.key) == ["4"])
        // The app token of realm Contoso and an entry whose home id is the same text are one key,
        // as with the one-by-one index (a home id starting with U+0001 is not one MSAL writes).
        #expect(
            built.accounts[TokenCacheIndex.AccountKey(home: TokenCacheIndex.applicationHome(realm: "Contoso"), environment: "e")]?.map(
                \.key) == ["5", "6"])
        #expect(
            built.accounts[TokenCacheIndex.AccountKey(home: TokenCacheIndex.assertionHome(hash: "AbC"), environment: "e")]?.map(\.key) == [
                "7"
            ])
    }

    @Test("A builder dropped before it finishes, and one that finished, free their items (no leak, no double free)")
    func dropped() {
        let entries = Self.entries(accounts: 200, seed: 9)
        for finishes in [false, true] {
            weak var source: CacheSource?
            do {
                let document = CacheSource(bytes: Array("x".utf8))
                source = document
                var builder = TokenCacheIndexBuilder(aliases: .builtIn)
                for (key, entry, section) in entries {
                    var entry = entry
                    entry.source = document
                    builder.add(key: key, entry: entry, section: section)
                }
                if finishes {
                    #expect(!builder.finish().accounts.isEmpty)
                }
            }
            #expect(source == nil, "finished: \(finishes)")
        }
    }
}
