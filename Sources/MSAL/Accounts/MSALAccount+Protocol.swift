/// Every account of swift-msal's cache is an ``MSALAccountProtocol``, as MSAL for iOS's
/// `MSALAccount` class adopts its `MSALAccount` protocol: what an external account provider
/// receives in ``MSALExternalAccountProviding/update(_:idTokenClaims:)`` and
/// ``MSALExternalAccountProviding/remove(_:wipeAccount:tenantProfiles:)`` is one, and a provider
/// may return one from ``MSALExternalAccountProviding/accounts(with:)``.
extension MSALAccount: MSALAccountProtocol {}
