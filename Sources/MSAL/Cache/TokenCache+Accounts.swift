extension TokenCache {
    /// The accounts `clientID` can use; see ``TokenCacheContents/accounts(clientID:environment:signedInOnly:)``.
    package func accounts(clientID: String, environment: String?, signedInOnly: Bool, memo: TokenCacheAccountMemo) throws -> [MSALAccount] {
        let query = TokenCacheAccountMemo.Query(
            clientID: CacheText.lowercased(clientID), environment: environment.map(CacheText.lowercased), signedInOnly: signedInOnly)
        return try read(clientID: clientID) { contents in memo.accounts(query, contents: contents) }
    }

    /// ``accounts(clientID:environment:signedInOnly:memo:)`` for async callers, without blocking a
    /// cooperative thread (the async ``read(clientID:partition:_:)``).
    /// `partition`: the one account asked about, if any (its partition is all a partitioned store
    /// loads).
    package func accounts(
        clientID: String, environment: String?, signedInOnly: Bool, memo: TokenCacheAccountMemo, partition: TokenCachePartition? = nil
    ) async throws -> [MSALAccount] {
        let query = TokenCacheAccountMemo.Query(
            clientID: CacheText.lowercased(clientID), environment: environment.map(CacheText.lowercased), signedInOnly: signedInOnly)
        return try await read(clientID: clientID, partition: partition) { contents in memo.accounts(query, contents: contents) }
    }

    /// The account `clientID` can use with home account id `identifier` in the cloud `environment`,
    /// found with one index probe (no account list is built); `nil` when there is none. Read
    /// without blocking a cooperative thread, as ``accounts(clientID:environment:signedInOnly:memo:partition:)``.
    package func account(identifier: String, clientID: String, environment: String, signedInOnly: Bool) async throws -> MSALAccount? {
        try await read(clientID: clientID, partition: .account(identifier)) { contents in
            contents.listedAccount(
                identifier: identifier,
                filter: TokenCacheContents.AccountFilter(
                    contents: contents, clientID: clientID, environment: environment, signedInOnly: signedInOnly))
        }
    }
}
