extension TokenClient {
    /// Removes `account`'s tokens for this client (`TokenCacheContents.removeAccount`)
    /// without blocking a cooperative thread, and forgets the remembered silent hits. An account
    /// without an identifier is not in the cache: nothing happens.
    package func removeTokens(of account: MSALAccount) async throws {
        guard let identifier = account.identifier else { return }
        logger.info("Removing the tokens of \(oii: identifier) for this application", correlationID: nil)
        let clientID = self.clientID
        let environment = account.environment
        _ = try await cache.write(clientID: clientID, partition: .account(identifier)) { contents in
            contents.removeAccount(homeAccountID: identifier, environment: environment, clientID: clientID)
        }
        silentHits.forgetAll()
    }
}
