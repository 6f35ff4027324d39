import Foundation

/// Where a result's access token came from.
public enum MSALTokenSource: Int, Sendable, Hashable, CustomStringConvertible {
    /// The token cache; no network call was made.
    case cache = 0
    /// The identity provider, just now (sign-in, refresh or device code).
    case identityProvider = 1
    /// Microsoft's Linux identity broker (``MSALLinuxBrokerOptions``), which keeps its own tokens.
    case broker = 2

    /// `cache`, `identity_provider` or `broker`, as MSAL for Python's `token_source`.
    public var description: String {
        switch self {
        case .cache: "cache"
        case .identityProvider: "identity_provider"
        case .broker: "broker"
        }
    }
}

/// A token and what it was issued for.
public final class MSALResult: Sendable, CustomStringConvertible {
    /// The access token: send it as ``authorizationHeader``. For a proof-of-possession token
    /// (``MSALAuthenticationSchemePop``), the signed HTTP request that presents it, as in MSAL for iOS.
    public var accessToken: String { presentation?.token ?? token.accessToken }
    /// When the access token expires.
    public var expiresOn: Date? { token.expiresOn }
    /// Whether the token is past its regular lifetime and was returned only because the service
    /// was unavailable and ``MSALPublicClientApplicationConfig/extendedLifetimeEnabled`` is on.
    public var extendedLifeTimeToken: Bool { token.extendedLifeTimeToken }
    /// The raw ID token of the account in the request's tenant, when there is one.
    public var idToken: String? { token.idToken }
    /// The scopes the access token was granted for.
    public var scopes: [String] {
        switch token.scopes {
        case .list(let scopes): scopes
        case .target(let target): CacheText.scopeStrings(target)
        }
    }
    /// The account's profile in the tenant the token was issued by.
    public var tenantProfile: MSALTenantProfile { token.tenantProfile }
    /// The account the token belongs to.
    public var account: MSALAccount { token.account }
    /// The authority the request was made to.
    public let authority: MSALAuthority
    /// The correlation id of the request.
    public let correlationId: UUID
    /// Whether the token came from the cache or the identity provider.
    public var tokenSource: MSALTokenSource { token.source }
    /// When the token should be refreshed ahead of expiry (`refresh_in`), when the service said.
    public var refreshOn: Date? { token.refreshOn }

    /// What two results for the same token share: everything but the request's authority object
    /// and correlation id. A result reissued for another request (``correlated(_:)``,
    /// ``reissued(authority:correlationID:)``) then costs one object and two references.
    private final class Token: Sendable {
        let accessToken: String
        let expiresOn: Date?
        let extendedLifeTimeToken: Bool
        /// The ID token, a string of its own: a result an app keeps never keeps the cache
        /// document in memory.
        let idToken: String?
        let scopes: ScopesStorage
        let tenantProfile: MSALTenantProfile
        let account: MSALAccount
        let source: MSALTokenSource
        let refreshOn: Date?

        init(
            accessToken: String, expiresOn: Date?, extendedLifeTimeToken: Bool, idToken: String?, scopes: ScopesStorage,
            tenantProfile: MSALTenantProfile, account: MSALAccount, source: MSALTokenSource, refreshOn: Date?
        ) {
            self.accessToken = accessToken
            self.expiresOn = expiresOn
            self.extendedLifeTimeToken = extendedLifeTimeToken
            self.idToken = idToken
            self.scopes = scopes
            self.tenantProfile = tenantProfile
            self.account = account
            self.source = source
            self.refreshOn = refreshOn
        }
    }

    private let token: Token

    /// How a bound token is presented: the scheme's name, the `Authorization` scheme, and the
    /// signed request made for this result. `nil`: a bearer token, presented as it is.
    private struct Presentation: Sendable {
        let scheme: String
        let headerScheme: String
        let token: String
        /// The key of a DPoP token, which signs the proofs of resource requests.
        let dpopKey: ProofKey?
    }

    private let presentation: Presentation?

    private enum ScopesStorage: Sendable {
        case list([String])
        /// A space-separated target, split on access.
        case target(String)
    }

    /// Creates a result, for instance to test an app without an identity provider.
    public convenience init(
        accessToken: String, expiresOn: Date?, extendedLifeTimeToken: Bool = false, idToken: String?,
        scopes: [String], tenantProfile: MSALTenantProfile, account: MSALAccount, authority: MSALAuthority,
        correlationId: UUID, tokenSource: MSALTokenSource, refreshOn: Date? = nil
    ) {
        self.init(
            token: Token(
                accessToken: accessToken, expiresOn: expiresOn, extendedLifeTimeToken: extendedLifeTimeToken, idToken: idToken,
                scopes: .list(scopes), tenantProfile: tenantProfile, account: account, source: tokenSource, refreshOn: refreshOn),
            authority: authority, correlationId: correlationId)
    }

    /// A result whose scopes stay the cached token's space-separated `target` until read.
    package convenience init(
        accessToken: String, expiresOn: Date?, extendedLifeTimeToken: Bool, idToken: String?,
        target: String, tenantProfile: MSALTenantProfile, account: MSALAccount, authority: MSALAuthority,
        correlationId: UUID, tokenSource: MSALTokenSource, refreshOn: Date?
    ) {
        self.init(
            token: Token(
                accessToken: accessToken, expiresOn: expiresOn, extendedLifeTimeToken: extendedLifeTimeToken, idToken: idToken,
                scopes: .target(target), tenantProfile: tenantProfile, account: account, source: tokenSource, refreshOn: refreshOn),
            authority: authority, correlationId: correlationId)
    }

    /// An app token's result (client credentials, managed identity): the application's own, with
    /// no user account; times in whole seconds since 1970.
    package convenience init(
        appToken secret: String, target: String, expiresOn: Int64, refreshOn: Int64?, environment: String, realm: String,
        authority: MSALAuthority, correlationId: UUID, tokenSource: MSALTokenSource
    ) {
        self.init(
            accessToken: secret, expiresOn: Date(timeIntervalSince1970: Double(expiresOn)), extendedLifeTimeToken: false, idToken: nil,
            target: target,
            tenantProfile: MSALTenantProfile(
                identifier: "", environment: environment, tenantId: realm, isHomeTenantProfile: false, idToken: nil),
            account: MSALAccount(application: environment), authority: authority, correlationId: correlationId, tokenSource: tokenSource,
            refreshOn: refreshOn.map { Date(timeIntervalSince1970: Double($0)) })
    }

    private init(token: Token, authority: MSALAuthority, correlationId: UUID, presentation: Presentation? = nil) {
        self.token = token
        self.authority = authority
        self.correlationId = correlationId
        self.presentation = presentation
    }

    /// This result as told to a caller that joined another caller's request for the same token:
    /// everything the same but the correlation id, which is the joiner's own.
    package func correlated(_ correlationID: UUID) -> MSALResult {
        guard correlationId != correlationID else { return self }
        return MSALResult(token: token, authority: authority, correlationId: correlationID, presentation: presentation)
    }

    /// This result as the answer to another request for the same token: everything the same but
    /// the request's authority object and correlation id.
    package func reissued(authority: MSALAuthority, correlationID: UUID) -> MSALResult {
        MSALResult(token: token, authority: authority, correlationId: correlationID, presentation: presentation)
    }

    /// The token as issued, whatever presents it: what a signed HTTP request signs.
    package var boundAccessToken: String { token.accessToken }

    /// This result presenting its token as `token` (a signed HTTP request, or the token itself for
    /// DPoP), with `scheme` as ``authenticationScheme`` and `headerScheme` in ``authorizationHeader``.
    package func presented(scheme: String, headerScheme: String, token presented: String, dpopKey: ProofKey? = nil) -> MSALResult {
        MSALResult(
            token: token, authority: authority, correlationId: correlationId,
            presentation: Presentation(scheme: scheme, headerScheme: headerScheme, token: presented, dpopKey: dpopKey))
    }

    /// The scheme of the token: `Bearer`, `Pop` for a proof-of-possession token (as MSAL for iOS
    /// names it), or `DPoP`.
    public var authenticationScheme: String { presentation?.scheme ?? "Bearer" }

    /// The `Authorization` header value: `Bearer <access token>`, `PoP <signed HTTP request>` for a
    /// proof-of-possession token, or `DPoP <access token>` for a DPoP token (send it with a
    /// `DPoP` header from ``dpopProof(httpMethod:requestUrl:nonce:)``).
    public var authorizationHeader: String { "\(presentation?.headerScheme ?? "Bearer") \(accessToken)" }

    /// The DPoP key of a DPoP token; `nil` for any other.
    package var dpopKey: ProofKey? { presentation?.dpopKey }

    /// The claims of the ID token, decoded on each access.
    public var idTokenClaims: [String: any Sendable]? {
        idToken.flatMap { MSALClaims.dictionary(fromIDToken: $0) }
    }

    /// The scopes, expiry, source and account; never the tokens.
    public var description: String {
        "MSALResult(scopes: \(scopes), expiresOn: \(expiresOn.map { "\($0)" } ?? "nil"), tokenSource: \(tokenSource), account: \(account), correlationId: \(correlationId.uuidString))"
    }
}
