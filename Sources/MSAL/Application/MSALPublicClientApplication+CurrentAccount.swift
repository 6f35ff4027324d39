import Foundation

extension MSALPublicClientApplication {
    /// The account a single-account app is signed in with, and the previous one, as MSAL for
    /// iOS's `getCurrentAccount` answers them.
    ///
    /// - The current account is the only account signed in to this application, or `nil` when none
    ///   is.
    /// - The previous account is the current account this application object answered the last time
    ///   it was asked (the same account when nothing changed, `nil` on the first call), so an app
    ///   can tell that the user changed or signed out by comparing the two. MSAL for iOS keeps it
    ///   across launches in its keychain; swift-msal keeps it in memory.
    ///
    /// - Throws: ``MSALFailure`` ``MSALError/internal`` with
    ///   ``MSALInternalError/internalErrorAmbiguousAccount`` when several accounts are signed in
    ///   (a multiple-account app lists them with ``allAccounts()`` instead), as MSAL for iOS does;
    ///   or a cache error.
    public func currentAccount(with parameters: MSALParameters? = nil) async throws -> (MSALAccount?, MSALAccount?) {
        let accounts = try await accountsWithoutBlocking(for: MSALAccountEnumerationParameters())
        guard accounts.count <= 1 else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorAmbiguousAccount,
                message: "Several accounts are signed in to this application; list them with allAccounts()",
                correlationID: parameters?.correlationId)
        }
        let current = accounts.first
        let previous = currentPrincipal.withLock { remembered -> MSALAccount? in
            defer { remembered = current }
            return remembered
        }
        return (current, previous)
    }

    /// ``currentAccount(with:)`` with a completion block, as MSAL for iOS names it.
    public func getCurrentAccount(
        with parameters: MSALParameters?, completionBlock: @escaping @Sendable (MSALAccount?, MSALAccount?, (any Error)?) -> Void
    ) {
        let queue = parameters?.completionBlockQueue
        Task {
            do {
                let (current, previous) = try await currentAccount(with: parameters)
                MSALParameters.deliver(on: queue) { completionBlock(current, previous, nil) }
            } catch {
                MSALParameters.deliver(on: queue) { completionBlock(nil, nil, error) }
            }
        }
    }
}
