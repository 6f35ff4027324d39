import Testing

@testable import MSAL

/// The index's accounts: a dictionary by account key that iterates in the order accounts were
/// added, checked against a plain dictionary over random changes.
@Suite("Token cache index accounts")
struct TokenCacheIndexAccountsTests {
    static func key(_ number: Int) -> TokenCacheIndex.AccountKey {
        TokenCacheIndex.AccountKey(home: "home-\(number)", environment: number % 3 == 0 ? "e1" : "e2")
    }

    static func items(_ tag: String) -> [TokenCacheIndex.Item] {
        [
            TokenCacheIndex.Item(
                section: .account, isFamily: false, client: "", realm: "", entry: CacheEntry(), idToken: nil, key: tag, scopes: [],
                target: "")
        ]
    }

    @Test("Adding, replacing, appending and removing at random gives what a dictionary gives; iteration follows the order of adding")
    func sameAsDictionary() {
        var random = CacheDocumentReaderTests.Generator(state: 43)
        var accounts = TokenCacheIndexAccounts()
        var reference: [TokenCacheIndex.AccountKey: [String]] = [:]
        var order: [TokenCacheIndex.AccountKey] = []
        for step in 0..<40_000 {
            let key = Self.key(Int.random(in: 0..<(step < 20_000 ? 2_000 : 300), using: &random))
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                accounts[key] = Self.items("set-\(step)")
                if reference[key] == nil { order.append(key) }
                reference[key] = ["set-\(step)"]
            case 1:
                accounts[key, default: []].append(contentsOf: Self.items("append-\(step)"))
                if reference[key] == nil { order.append(key) }
                reference[key, default: []].append("append-\(step)")
            case 2:
                accounts[key] = nil
                if reference[key] != nil, let position = order.firstIndex(of: key) {
                    // The last account takes the removed one's place.
                    let last = order.removeLast()
                    if position < order.count { order[position] = last }
                }
                reference[key] = nil
            default:
                #expect(accounts[key]?.map(\.key) == reference[key])
            }
        }
        #expect(accounts.count == reference.count)
        #expect(accounts.isEmpty == reference.isEmpty)
        #expect(accounts.keys == order)
        #expect(accounts.map(\.key) == order)
        #expect(accounts.map { $0.value.map(\.key) } == order.map { reference[$0]! })
        #expect(Dictionary(uniqueKeysWithValues: accounts.map { ($0.key, $0.value.map(\.key)) }) == reference)
    }

    @Test("A table built at once keeps the order it was given")
    func builtAtOnce() {
        var accounts = TokenCacheIndexAccounts()
        accounts.reserveCapacity(3)
        for number in [5, 1, 9] { accounts.appendNew(Self.key(number), Self.items("\(number)")) }
        #expect(accounts.keys == [Self.key(5), Self.key(1), Self.key(9)])
        #expect(accounts[Self.key(1), default: []].map(\.key) == ["1"])
        #expect(accounts[Self.key(2), default: []].isEmpty)
        #expect(accounts.count == 3)
    }
}
