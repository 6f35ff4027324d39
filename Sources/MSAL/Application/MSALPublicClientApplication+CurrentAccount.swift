import Foundation

extension MSALPublicClientApplication {
    /// The account a single-account app is signed in with, and the previous one (always `nil`
    /// here: swift-msal keeps no record of accounts signed out).
    ///
    /// The current account is the only signed-in account, or the first of several (ordered by
    /// identifier so the answer is stable).
    public func currentAccount(with parameters: MSALParameters? = nil) async throws -> (MSALAccount?, MSALAccount?) {
        let accounts = try await accountsWithoutBlocking(for: MSALAccountEnumerationParameters()).sorted {
            ($0.identifier ?? "") < ($1.identifier ?? "")
        }
        return (accounts.first, nil)
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
