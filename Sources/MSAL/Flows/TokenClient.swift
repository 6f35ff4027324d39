import Foundation
import MSALJOSE

/// What the flows share: the application's identity and settings, and its transport, authority
/// resolver, token cache and clock. The flows do I/O only through these. What only one kind of
/// application adds is its ``Role``.
///
/// A class: every flow holds it, and copying a struct of fifteen references cost a retain and a
/// release each on every silent request.
package final class TokenClient: Sendable {
    /// What a public client adds: its browser sign-in and MSAL for iOS's public-client settings.
    package struct PublicClient: Sendable {
        package var redirectURI: String?
        package var extendedLifetimeEnabled = false
        package var multipleCloudsSupported = false
        /// The environment the default system browser reads instead of the process's (test wiring).
        package var systemBrowserEnvironment: [String: String]? = nil
        /// The `slice` and `dc` query parameters of ``MSALPublicClientApplicationConfig/sliceConfig``,
        /// sent with every authorization and token request (empty without one).
        package var sliceParameters: [String: String] = [:]
        /// Where interactive requests register their wait for the web UI, so it can be canceled.
        package var webAuthSessions = WebAuthSessions.shared
    }

    /// The kind of application, with what it adds to the shared part.
    package enum Role: Sendable {
        case publicClient(PublicClient)
        /// A confidential client's authentication, added to every token request it sends
        /// (refreshes and code redemptions too).
        case confidentialClient(ClientAuthentication)
        /// A managed identity: the platform's source proves it (``ManagedIdentityFlow``).
        case managedIdentity
    }

    package let clientID: String
    package let defaultAuthority: MSALAuthority
    package let capabilities: [String]?
    /// Reserved scopes user token requests leave out (``ApplicationSettings/excludedScopes``), lower-cased.
    package let excludedScopes: Set<String>
    package let expiryBuffer: Int64
    package let pipeline: HTTPPipeline
    package let resolver: AuthorityResolver
    package let cache: TokenCache
    package let clock: any MSALClock
    /// Whether ``clock`` is the system clock, so whole seconds are read without a `Date`.
    private let readsSystemClock: Bool
    package let refreshFlights = RefreshFlights()
    package let derivedAuthorities = DerivedAuthorities()
    /// Where PKCE verifiers, states and nonces come from (the interactive and web-app flows).
    package let secrets: any InteractiveSecretsSource
    package let logger = MSALLogger()
    /// Where the flows' correlation ids come from.
    package let correlationIDs = CorrelationID()
    /// The app tokens `acquireTokenForClient` found in the cache last (``ClientCredentialsFlow``).
    package let appTokenHits = CacheHitMemo<AppTokenHitKey>()
    /// The tokens `acquireTokenSilent` found in the cache last (``SilentFlow``).
    package let silentHits = CacheHitMemo<SilentHitKey>()
    /// The keys bound tokens are bound to (issue 40), kept beside a cache file.
    package let proofKeys: ProofKeys
    /// The DPoP nonces servers gave (``TokenClient/sendTokenRequest(_:presentation:correlationID:)``).
    package let dpopNonces = DPoPNonces()
    /// The public client's part; `nil` for a confidential client.
    package let publicClient: PublicClient?
    /// A confidential client's authentication; `nil` for a public client.
    package let clientAuthentication: ClientAuthentication?

    /// The shared part from `settings` and the parts `wiring` built from them, with `role`'s own.
    package init(
        clientID: String, settings: ApplicationSettings, wiring: ApplicationWiring, secrets: any InteractiveSecretsSource, role: Role
    ) {
        self.clientID = clientID
        self.defaultAuthority = settings.authority
        self.capabilities = settings.clientApplicationCapabilities
        self.excludedScopes = Set((settings.excludedScopes ?? []).map { $0.lowercased() })
        self.expiryBuffer = settings.expiryBuffer
        self.pipeline = wiring.pipeline
        self.resolver = wiring.resolver
        self.cache = wiring.cache
        let cache = wiring.cache
        self.proofKeys = ProofKeys(place: { try cache.proofKeyPlace() })
        self.clock = wiring.clock
        self.readsSystemClock = wiring.clock is MSALSystemClock
        self.secrets = secrets
        switch role {
        case .publicClient(let own):
            publicClient = own
            clientAuthentication = nil
        case .confidentialClient(let authentication):
            publicClient = nil
            clientAuthentication = authentication
        case .managedIdentity:
            publicClient = nil
            clientAuthentication = nil
        }
    }

    /// The registered redirect URI of a public client.
    package var redirectURI: String? { publicClient?.redirectURI }
    /// Whether a public client returns tokens within their extended lifetime while the service is down.
    package var extendedLifetimeEnabled: Bool { publicClient?.extendedLifetimeEnabled ?? false }
    /// Whether a public client lists and refreshes accounts of every cloud.
    package var multipleCloudsSupported: Bool { publicClient?.multipleCloudsSupported ?? false }

    /// `webUI`, or the system browser reading ``systemBrowserEnvironment`` when `webUI` is the
    /// default system browser and that environment is set.
    package func effectiveWebUI(_ webUI: any MSALWebUI) -> any MSALWebUI {
        guard let systemBrowserEnvironment = publicClient?.systemBrowserEnvironment, let browser = webUI as? MSALSystemBrowser,
            browser.readsProcessEnvironment
        else { return webUI }
        return MSALSystemBrowser(environment: systemBrowserEnvironment)
    }

    /// The form fields that authenticate a confidential client at `tokenEndpoint` (none for a
    /// public client): PS256 with `x5t#S256` for the Microsoft identity platform, RS256 with `x5t`
    /// for AD FS and other providers; a certificate's assertion reused for a while with a Microsoft
    /// authority, signed anew for every request to another provider (which may refuse a replay).
    ///
    /// `claims` is what the request sends (``MSALClientAssertionRequest/claims``); `context` adds
    /// the request's own (`sendX5C`, the FMI path for the assertion), its claims and capabilities
    /// replaced by these.
    package func authenticationFields(
        tokenEndpoint: URL, authority: MSALAuthority, claims: String?, context: ClientAuthentication.RequestContext = .init()
    ) async throws -> [(String, String)] {
        guard let clientAuthentication else { return [] }
        let kind = authority.kind
        var context = context
        context.claims = claims
        context.clientCapabilities = capabilities
        return try await clientAuthentication.formFields(
            tokenEndpoint: tokenEndpoint.absoluteString, sha256Thumbprint: kind.isMicrosoft && kind != .adfs,
            reusesAssertion: kind.isMicrosoft, context: context)
    }

    /// A new PKCE verifier, state and nonce for an authorization request.
    package func interactiveSecrets(correlationID: UUID) throws(MSALFailure) -> InteractiveSecrets {
        do throws(JOSEError) {
            return try secrets.make()
        } catch {
            throw MSALFailure(error, correlationID: correlationID)
        }
    }

    /// The current time in whole seconds since 1970 (``MSALSystemClock/secondsNow()`` for the
    /// system clock: every cache hit reads it).
    package var nowSeconds: Int64 {
        readsSystemClock ? MSALSystemClock.secondsNow() : Int64(clock.now().timeIntervalSince1970.rounded(.down))
    }

    /// The claims to send: the request's claims merged with the client capabilities.
    package func claimsParameter(_ request: MSALClaimsRequest?) -> String? {
        ClaimsMerging.merged(claims: request?.jsonString(), capabilities: capabilities)
    }

    /// The tenant that answers for an account when the authority names none (`common`,
    /// `organizations`): the account's home tenant. `consumers` is the Microsoft account tenant.
    package static let consumersTenantID = "9188040d-6c67-4c5b-b112-36a304b66dad"

    /// Whether `tenant` is one of Entra's multi-tenant aliases.
    package static func isMultiTenant(_ tenant: String) -> Bool {
        CacheText.equalIgnoringASCIICase(tenant, "common") || CacheText.equalIgnoringASCIICase(tenant, "organizations")
    }
}
