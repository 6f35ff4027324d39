import Foundation
import MSALSupport

/// The parameters of ``MSALConfidentialClientApplication/acquireTokenOnBehalfOf(with:)``: a
/// middle-tier API's request for the tokens of the user who called it, for a downstream API
/// (the on-behalf-of flow).
///
/// ``userAssertion`` is the access token the caller sent the API (the value of its
/// `Authorization: Bearer` header, without the prefix), after the API validated it.
/// ``MSALTokenParameters/scopes`` name the downstream API's delegated scopes, such as
/// `["https://graph.microsoft.com/User.Read"]`. ``MSALTokenParameters/account`` is not used: the
/// assertion names the user.
public final class MSALOnBehalfOfParameters: MSALTokenParameters, @unchecked Sendable {
    // @unchecked Sendable: as MSALTokenParameters; `userAssertion` is immutable and the other
    // stored properties are Mutexes.
    private let refresh = Mutex(false)
    private let chain = Mutex<Bool?>(nil)

    /// The access token the caller presented to the API. The tokens obtained with it are cached
    /// under its hash, and returned only for the same assertion.
    public let userAssertion: String

    /// Creates parameters for `scopes`, on behalf of the caller who presented `userAssertion`.
    public init(scopes: [String], userAssertion: String) {
        self.userAssertion = userAssertion
        super.init(scopes: scopes)
    }

    /// Ignore the cached tokens and present the assertion to the token endpoint again. Default `false`.
    ///
    /// A request with ``MSALTokenParameters/claimsRequest`` (a claims challenge from the
    /// downstream API) does the same.
    public var forceRefresh: Bool {
        get { refresh.withLock { $0 } }
        set { refresh.withLock { $0 = newValue } }
    }

    /// Whether this request's certificate assertion carries the certificate chain (`x5c`):
    /// overrides the credential's `sendX5C`, as MSAL.NET's `WithSendX5C` does per request. `nil`
    /// (the default) keeps the credential's; other credentials ignore it.
    public var sendX5C: Bool? {
        get { chain.withLock { $0 } }
        set { chain.withLock { $0 = newValue } }
    }
}
