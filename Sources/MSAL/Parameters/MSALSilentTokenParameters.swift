import Foundation
import MSALSupport

/// The parameters of ``MSALPublicClientApplication/acquireTokenSilent(with:completionBlock:)``.
public final class MSALSilentTokenParameters: MSALTokenParameters, @unchecked Sendable {
    private let refresh = Mutex(false)

    /// Creates parameters for `scopes` and `account`.
    public init(scopes: [String], account: MSALAccount) {
        super.init(scopes: scopes)
        self.account = account
    }

    /// Creates parameters for `scopes`; set ``MSALTokenParameters/account`` before use.
    public override init(scopes: [String]) {
        super.init(scopes: scopes)
    }

    /// Ignore cached access tokens and always redeem the refresh token. Default `false`.
    public var forceRefresh: Bool {
        get { refresh.withLock { $0 } }
        set { refresh.withLock { $0 = newValue } }
    }
}
