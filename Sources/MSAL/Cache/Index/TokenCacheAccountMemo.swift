import MSALSupport

/// Remembers the account list per query and brings it up to date incrementally: between changes
/// `allAccounts()` costs one dictionary probe, and after a change only the accounts the change
/// touched (as ``TokenCacheContents/changes`` records them) are built again, so the first call
/// after signing one user in is cheap even with 10,000 accounts. Accounts a change did not touch
/// keep their ``MSALAccount`` objects.
package final class TokenCacheAccountMemo: Sendable {
    package struct Query: Hashable, Sendable {
        var clientID: String
        var environment: String?
        var signedInOnly: Bool
    }

    /// One query's list, as of one revision of one cache's contents.
    private struct List {
        var lineage: TokenCacheContents.Lineage
        var revision: Int
        var accounts: [MSALAccount]
        /// The index key of each account in `accounts`, at the same position.
        var keys: [TokenCacheIndex.AccountKey]
        /// The position of each account in `accounts`.
        var positions: [TokenCacheIndex.AccountKey: Int]
    }

    private let lists = Mutex<[Query: List]>([:])

    package init() {}

    package func accounts(_ query: Query, contents: TokenCacheContents) -> [MSALAccount] {
        lists.withLock { lists in
            // Taken out of the table so its storage is uniquely referenced while it is updated.
            if var list = lists.removeValue(forKey: query), list.lineage === contents.lineage {
                if list.revision == contents.revision {
                    lists[query] = list
                    return list.accounts
                }
                if let changed = contents.changes.accounts(since: list.revision) {
                    Self.update(&list, changed: changed, query: query, contents: contents)
                    lists[query] = list
                    return list.accounts
                }
            }
            let list = Self.build(query, contents: contents)
            lists[query] = list
            return list.accounts
        }
    }

    /// Whether no list is remembered (for tests).
    package var isEmpty: Bool { lists.withLock { $0.isEmpty } }

    private static func filter(_ query: Query, contents: TokenCacheContents) -> TokenCacheContents.AccountFilter {
        TokenCacheContents.AccountFilter(
            contents: contents, clientID: query.clientID, environment: query.environment, signedInOnly: query.signedInOnly)
    }

    private static func build(_ query: Query, contents: TokenCacheContents) -> List {
        let filter = filter(query, contents: contents)
        var list = List(lineage: contents.lineage, revision: contents.revision, accounts: [], keys: [], positions: [:])
        list.accounts.reserveCapacity(contents.index.accounts.count)
        list.keys.reserveCapacity(contents.index.accounts.count)
        list.positions.reserveCapacity(contents.index.accounts.count)
        for key in contents.index.accounts.keys {
            guard let account = contents.listedAccount(key, filter: filter) else { continue }
            list.positions[key] = list.accounts.count
            list.accounts.append(account)
            list.keys.append(key)
        }
        return list
    }

    /// Builds the `changed` accounts again: replaced in place, appended when new to the list,
    /// removed (the last account moving into the gap) when the list no longer shows them.
    private static func update(_ list: inout List, changed: [TokenCacheIndex.AccountKey], query: Query, contents: TokenCacheContents) {
        let filter = filter(query, contents: contents)
        var done = Set<TokenCacheIndex.AccountKey>()
        for key in changed where done.insert(key).inserted {
            let account = contents.listedAccount(key, filter: filter)
            if let position = list.positions[key] {
                if let account {
                    list.accounts[position] = account
                    continue
                }
                let last = list.accounts.count - 1
                if position != last {
                    list.accounts[position] = list.accounts[last]
                    list.keys[position] = list.keys[last]
                    list.positions[list.keys[position]] = position
                }
                list.accounts.removeLast()
                list.keys.removeLast()
                list.positions[key] = nil
            } else if let account {
                list.positions[key] = list.accounts.count
                list.accounts.append(account)
                list.keys.append(key)
            }
        }
        list.revision = contents.revision
    }
}
