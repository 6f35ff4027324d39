import Synchronization

/// Remembers the last account list per query while the cache does not change, so `allAccounts()`
/// costs one dictionary probe between changes even with 10,000 accounts.
package final class TokenCacheAccountMemo: Sendable {
    package struct Query: Hashable, Sendable {
        var clientID: String
        var environment: String?
        var signedInOnly: Bool
    }

    private let entries = Mutex<[Query: (revision: Int, accounts: [MSALAccount])]>([:])

    package init() {}

    package func accounts(_ query: Query, contents: TokenCacheContents) -> [MSALAccount] {
        if let hit = entries.withLock({ $0[query] }), hit.revision == contents.revision {
            return hit.accounts
        }
        let accounts = contents.accounts(clientID: query.clientID, environment: query.environment, signedInOnly: query.signedInOnly)
        entries.withLock { $0[query] = (contents.revision, accounts) }
        return accounts
    }
}

extension TokenCache {
    /// The accounts `clientID` can use; see ``TokenCacheContents/accounts(clientID:environment:signedInOnly:)``.
    package func accounts(clientID: String, environment: String?, signedInOnly: Bool, memo: TokenCacheAccountMemo) throws -> [MSALAccount] {
        let query = TokenCacheAccountMemo.Query(
            clientID: CacheText.lowercased(clientID), environment: environment.map(CacheText.lowercased), signedInOnly: signedInOnly)
        return try read(clientID: clientID) { contents in memo.accounts(query, contents: contents) }
    }
}
