/// The `NSError` domain of every error swift-msal reports.
public let MSALErrorDomain = "MSALErrorDomain"

/// `userInfo` key: the ``MSALInternalError`` raw value with the precise cause.
public let MSALInternalErrorCodeKey = "MSALInternalErrorCodeKey"
/// `userInfo` key: a description of the error, for logs (not for program logic).
public let MSALErrorDescriptionKey = "MSALErrorDescriptionKey"
/// `userInfo` key: the OAuth `error` returned by the server.
public let MSALOAuthErrorKey = "MSALOAuthErrorKey"
/// `userInfo` key: the OAuth `suberror` returned by the server.
public let MSALOAuthSubErrorKey = "MSALOAuthSubErrorKey"
/// `userInfo` key: the description of the OAuth `suberror`, when the server sent one.
public let MSALOAuthSubErrorDescriptionKey = "MSALOAuthSubErrorDescriptionKey"
/// `userInfo` key: the displayable user id (username) of the account the error concerns.
public let MSALDisplayableUserIdKey = "MSALDisplayableUserIdKey"
/// `userInfo` key: the version of the broker that answered. MSAL for iOS sets it for its broker;
/// swift-msal has no broker and never sets it.
public let MSALBrokerVersionKey = "MSALBrokerVersionKey"
/// `userInfo` key: the server's `error_codes` (AADSTS numbers), as `[Int]`.
public let MSALSTSErrorCodesKey = "MSALSTSErrorCodesKey"
/// `userInfo` key: the HTTP response headers, as `[String: String]`.
public let MSALHTTPHeadersKey = "MSALHTTPHeadersKey"
/// `userInfo` key: the HTTP status code, as a `String` ("503"), as MSAL for iOS puts it there.
public let MSALHTTPResponseCodeKey = "MSALHTTPResponseCodeKey"
/// `userInfo` key: the correlation id of the request, as a `String`.
public let MSALCorrelationIDKey = "MSALCorrelationIDKey"
/// `userInfo` key: scopes the server declined, as `[String]`.
public let MSALDeclinedScopesKey = "MSALDeclinedScopesKey"
/// `userInfo` key: scopes the server granted when it declined others, as `[String]`.
public let MSALGrantedScopesKey = "MSALGrantedScopesKey"
/// `userInfo` key: a result that was received but failed validation.
public let MSALInvalidResultKey = "MSALInvalidResultKey"
/// `userInfo` key: the home account id the error concerns.
public let MSALHomeAccountIdKey = "MSALHomeAccountIdKey"
/// `userInfo` key: `true` when the error was answered from the throttling cache without a network call.
public let MSALThrottlingCacheHitKey = "MSALThrottlingCacheHitKey"
/// `userInfo` key: the claims challenge the server sent with an interaction-required error.
public let MSALClaimsKey = "MSALClaimsKey"
/// `userInfo` key: the authorization URL the user can open themselves when no browser could be launched, as a `URL`.
public let MSALAuthorizationURLKey = "MSALAuthorizationURLKey"
