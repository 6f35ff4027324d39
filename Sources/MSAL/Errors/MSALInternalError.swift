/// The precise cause behind an ``MSALFailure``, carried in `userInfo[MSALInternalErrorCodeKey]`.
///
/// Values from −42000 to −42999 are MSAL for iOS/macOS's own. Values from
/// −46000 are swift-msal's additions for ID-token and JOSE failures, which
/// MSAL for iOS does not verify. Values from −47000 are swift-msal's
/// additions for the network, throttling and authority metadata. Values from −49000 are swift-msal's
/// additions for the web UI and interactive sign-in; from −50000 for confidential-client
/// credentials; from −51000 for managed identity; from −52000 for validating the access tokens a
/// protected API receives (their signature and claims failures use the −46000 codes of ID tokens).
/// Meant for diagnostics; handle ``MSALFailure``.
/// The precise cause behind an ``MSALFailure``, carried in `userInfo[MSALInternalErrorCodeKey]`.
///
/// Values from −42000 to −42999 are MSAL for iOS/macOS's own, with the names Swift gives them
/// there (`.internalErrorInvalidParameter`, `.internalBrokerNotAvailable`,
/// `.errorJITRetryRequired`: MSAL's names share only the `MSAL` prefix). Those that concern its
/// broker, view controllers, app extensions, device management and platform single sign-on are
/// here so that code switching over them compiles; swift-msal never produces them on Linux, except
/// ``internalBrokerNotAvailable`` from the broker-only calls.
/// ``serverError`` (−50006) is what MSAL for iOS puts here for a server's `server_error`.
///
/// swift-msal's own additions have short names: from −46000 for ID-token and JOSE failures, which
/// MSAL for iOS does not verify; from −47000 for the network, throttling and authority metadata;
/// from −48000 for the token cache; from −49000 for the web UI and interactive sign-in; from −51000
/// for managed identity; from −52000 for validating the access tokens a protected API receives
/// (their signature and claims failures use the −46000 codes of ID tokens); from −53000 for
/// confidential-client credentials. None is in ``MSALError``'s own range (−50000 to −50999, −50142).
/// Meant for diagnostics; handle ``MSALFailure/code``.
public enum MSALInternalError: Int, Sendable, CaseIterable, Hashable {
    /// A required parameter was missing or invalid.
    case internalErrorInvalidParameter = -42000
    /// The redirect scheme is not registered. MSAL for iOS checks its app's URL schemes; not produced on Linux.
    case internalErrorRedirectSchemeNotRegistered = -42001
    /// Protocol error, such as a missing required parameter (`invalid_request`).
    case internalErrorInvalidRequest = -42002
    /// Client authentication failed (`invalid_client`).
    case internalErrorInvalidClient = -42003
    /// The grant (code or refresh token) is invalid or expired (`invalid_grant`).
    case internalErrorInvalidGrant = -42004
    /// The scope parameter is invalid (`invalid_scope`).
    case internalErrorInvalidScope = -42005
    /// The client is not permitted to request this (`unauthorized_client`).
    case internalErrorUnauthorizedClient = -42006
    /// The server returned an unexpected HTTP response, such as a 5xx.
    case internalErrorUnhandledResponse = -42007
    /// An unexpected error inside swift-msal.
    case internalErrorUnexpected = -42008
    /// An unexpected HTTP 403 or 404.
    case internalErrorUnexpectedHttpResponse = -42009
    /// The authority did not pass validation.
    case internalErrorFailedAuthorityValidation = -42010
    /// The redirect URI is invalid.
    case internalErrorInvalidRedirectURI = -42011
    /// The signed-in user is not the expected one.
    case internalErrorMismatchedUser = -42101
    /// Several accounts match where one was expected.
    case internalErrorAmbiguousAccount = -42102
    /// The user or application failed to authenticate interactively.
    case internalErrorAuthorizationFailed = -42104
    /// A silent request needs an account.
    case internalErrorAccountRequired = -42106
    /// The request was canceled programmatically.
    case internalErrorSessionCanceled = -42401
    /// An interactive session is already running.
    case internalErrorInteractiveSessionAlreadyRunning = -42402
    /// MSAL for iOS found no view controller to present from; not produced on Linux.
    case internalErrorNoViewController = -42403
    /// MSAL for iOS was asked to open a URL from an app extension; not produced on Linux.
    case internalErrorAttemptToOpenURLFromExtension = -42404
    /// MSAL for iOS was asked to show UI in an app extension; not produced on Linux.
    case internalErrorUINotSupportedInExtension = -42405
    /// The `state` returned does not match the one sent.
    case internalErrorInvalidState = -42501
    /// The response body was invalid.
    case internalErrorInvalidResponse = -42600
    /// The server tried to redirect to a non-https URL.
    case internalErrorNonHttpsRedirect = -42602

    // MSAL for iOS's broker, just-in-time device registration and platform SSO. On Linux only the
    // codes that say so are produced, by Microsoft's Linux identity broker (`linuxBroker`).
    /// The Linux identity broker did not answer before the deadline
    /// (``MSALLinuxBrokerOptions/silentTimeout``, ``MSALLinuxBrokerOptions/interactiveTimeout``), or
    /// left the bus during the call (MSAL for iOS's code -42700 for its broker).
    case internalErrorBrokerResponseNotReceived = -42700
    /// MSAL for iOS's code -42701 (broker or device registration); never produced on Linux.
    case internalErrorBrokerNoResumeStateFound = -42701
    /// MSAL for iOS's code -42702 (broker or device registration); never produced on Linux.
    case internalErrorBrokerBadResumeStateFound = -42702
    /// MSAL for iOS's code -42703 (broker or device registration); never produced on Linux.
    case internalErrorBrokerMismatchedResumeState = -42703
    /// MSAL for iOS's code -42704 (broker or device registration); never produced on Linux.
    case internalErrorBrokerResponseHashMissing = -42704
    /// The Linux identity broker's answer is not what the protocol says: not JSON, a member
    /// missing or of another type, or a bearer token for a PoP request (MSAL for iOS's code -42705
    /// for its broker).
    case internalErrorBrokerCorruptedResponse = -42705
    /// MSAL for iOS's code -42706 (broker or device registration); never produced on Linux.
    case internalErrorBrokerResponseDecryptionFailed = -42706
    /// MSAL for iOS's code -42707 (broker or device registration); never produced on Linux.
    case internalErrorBrokerResponseHashMismatch = -42707
    /// MSAL for iOS's code -42708 (broker or device registration); never produced on Linux.
    case internalErrorBrokerKeyFailedToCreate = -42708
    /// MSAL for iOS's code -42709 (broker or device registration); never produced on Linux.
    case internalErrorBrokerKeyNotFound = -42709
    /// The Linux identity broker failed in a way no other code names (an unknown status, a D-Bus
    /// error); the message has the broker's status and context (MSAL for iOS's code -42711).
    case internalErrorBrokerUnknown = -42711
    /// MSAL for iOS's code -42712 (broker or device registration); never produced on Linux.
    case internalErrorBrokerApplicationTokenWriteFailed = -42712
    /// MSAL for iOS's code -42713 (broker or device registration); never produced on Linux.
    case internalErrorBrokerApplicationTokenReadFailed = -42713
    /// No broker is available for the request: no Linux identity broker answers on the bus (none
    /// installed or startable, no session bus or one that does not answer, or an older broker
    /// without the protocol's methods) and the application's
    /// ``MSALLinuxBrokerOptions/fallsBackToBrowser`` is off; also the answer of the broker-only
    /// calls of MSAL for iOS that Linux lacks (`getDeviceToken`).
    case internalBrokerNotAvailable = -42714
    /// MSAL for iOS's code -42715 (broker or device registration); never produced on Linux.
    case internalErrorJITLinkServerConfirmationError = -42715
    /// MSAL for iOS's code -42716 (broker or device registration); never produced on Linux.
    case internalErrorJITLinkAcquireTokenError = -42716
    /// MSAL for iOS's code -42717 (broker or device registration); never produced on Linux.
    case internalErrorJITLinkTokenAcquiredWrongTenant = -42717
    /// MSAL for iOS's code -42718 (broker or device registration); never produced on Linux.
    case internalErrorJITLinkError = -42718
    /// MSAL for iOS's code -42719 (broker or device registration); never produced on Linux.
    case internalErrorJITComplianceCheckResultNotCompliant = -42719
    /// MSAL for iOS's code -42720 (broker or device registration); never produced on Linux.
    case internalErrorJITComplianceCheckResultTimeout = -42720
    /// MSAL for iOS's code -42721 (broker or device registration); never produced on Linux.
    case internalErrorJITComplianceCheckResultUnknown = -42721
    /// MSAL for iOS's code -42722 (broker or device registration); never produced on Linux.
    case errorJITComplianceCheckInvalidLinkPayload = -42722
    /// MSAL for iOS's code -42723 (broker or device registration); never produced on Linux.
    case errorJITComplianceCheckCreateController = -42723
    /// MSAL for iOS's code -42724 (broker or device registration); never produced on Linux.
    case errorJITLinkConfigNotFound = -42724
    /// MSAL for iOS's code -42725 (broker or device registration); never produced on Linux.
    case errorJITInvalidLinkTokenConfig = -42725
    /// MSAL for iOS's code -42726 (broker or device registration); never produced on Linux.
    case errorJITWPJDeviceRegistrationFailed = -42726
    /// MSAL for iOS's code -42727 (broker or device registration); never produced on Linux.
    case errorJITWPJAccountIdentifierNil = -42727
    /// MSAL for iOS's code -42728 (broker or device registration); never produced on Linux.
    case errorJITWPJAcquireTokenError = -42728
    /// MSAL for iOS's code -42729 (broker or device registration); never produced on Linux.
    case errorJITRetryRequired = -42729
    /// MSAL for iOS's code -42730 (broker or device registration); never produced on Linux.
    case errorJITUnknownStatusWebCP = -42730
    /// MSAL for iOS's code -42731 (broker or device registration); never produced on Linux.
    case errorJITTroubleshootingCreateController = -42731
    /// MSAL for iOS's code -42732 (broker or device registration); never produced on Linux.
    case errorJITTroubleshootingAcquireToken = -42732
    /// MSAL for iOS's code -42733 (broker or device registration); never produced on Linux.
    case internalErrorJITLinkServerConfirmationTimeout = -42733
    /// MSAL for iOS's code -42734 (broker or device registration); never produced on Linux.
    case errorJITTroubleshootingRequired = -42734
    /// MSAL for iOS's code -42735 (broker or device registration); never produced on Linux.
    case errorJITTroubleshootingResultUnknown = -42735
    /// MSAL for iOS's code -42736 (broker or device registration); never produced on Linux.
    case errorDeviceNotPSSORegistered = -42736
    /// MSAL for iOS's code -42737 (broker or device registration); never produced on Linux.
    case errorPSSOKeyIdMismatch = -42737
    /// MSAL for iOS's code -42738 (broker or device registration); never produced on Linux.
    case errorJITErrorHandlingConfigNotFound = -42738
    /// MSAL for iOS's code -42739 (broker or device registration); never produced on Linux.
    case errorPSSOBiometricPolicyMismatch = -42739
    /// MSAL for iOS's code -42740 (broker or device registration); never produced on Linux.
    case errorPSSOInvalidPasskeyExtension = -42740
    /// MSAL for iOS's code -42741 (broker or device registration); never produced on Linux.
    case errorPSSOSaveLoginConfigFailure = -42741
    /// MSAL for iOS's code -42742 (broker or device registration); never produced on Linux.
    case errorPSSOPasskeyLAError = -42742
    /// MSAL for iOS's code -42743 (broker or device registration); never produced on Linux.
    case errorPSSOBiometricsNotAvailable = -42743
    /// MSAL for iOS's code -42744 (broker or device registration); never produced on Linux.
    case errorPSSOBiometricsNotEnrolled = -42744
    /// MSAL for iOS's code -42745 (broker or device registration); never produced on Linux.
    case internalErrorInvalidASWebAuthenticationURL = -42745

    /// The server's OAuth `server_error`: MSAL for iOS reports it as ``MSALError/internal`` with
    /// ``MSALError/serverError``'s raw value here, and so does swift-msal.
    case serverError = -50006

    /// A JWT's compact serialization is malformed (segments, JSON serialization, JWE).
    case jwtMalformed = -46001
    /// A token, document or key set exceeds a size, depth or count cap.
    case limitExceeded = -46002
    /// A JWT segment is not valid base64url.
    case jwtInvalidBase64URL = -46003
    /// JSON is invalid (syntax, UTF-8, trailing bytes).
    case invalidJSON = -46004
    /// A JSON object names a member twice.
    case duplicateJSONMember = -46005
    /// The JWS header is invalid.
    case jwtInvalidHeader = -46006
    /// The JWS `alg` is `none`, HMAC, or not allowed.
    case jwtUnsupportedAlgorithm = -46007
    /// The JWS header has an unknown `crit` extension.
    case jwtUnsupportedCriticalHeader = -46008
    /// The JWS `alg` does not fit the key.
    case jwtAlgorithmKeyMismatch = -46009
    /// No key has the token's `kid`.
    case jwtSigningKeyNotFound = -46010
    /// The token has no `kid` and several keys fit.
    case jwtAmbiguousSigningKey = -46011
    /// The signing key is unusable (weak, malformed, not on the curve).
    case jwtInvalidSigningKey = -46012
    /// The JWK set is unusable.
    case jwtInvalidKeySet = -46013
    /// The signature does not verify.
    case jwtInvalidSignature = -46014
    /// The JWT payload is not a JSON object.
    case jwtInvalidPayload = -46015
    /// A required ID-token claim is missing.
    case idTokenMissingClaim = -46020
    /// An ID-token claim has the wrong type or an impossible value.
    case idTokenInvalidClaim = -46021
    /// The ID token has expired.
    case idTokenExpired = -46022
    /// The ID token is not valid yet (`nbf`).
    case idTokenNotYetValid = -46023
    /// The ID token was issued in the future (`iat`).
    case idTokenIssuedInFuture = -46024
    /// The ID token's `iss` is not the expected issuer.
    case idTokenIssuerMismatch = -46025
    /// The ID token's `aud` does not contain the client id.
    case idTokenAudienceMismatch = -46026
    /// The ID token's `azp` is missing or names another client.
    case idTokenAuthorizedPartyMismatch = -46027
    /// The ID token's `nonce` does not match.
    case idTokenNonceMismatch = -46028
    /// `client_info` cannot be decoded.
    case invalidClientInfo = -46030
    /// The cryptographic library failed.
    case cryptoFailure = -46040

    /// The network failed: connection refused or reset, DNS, an unreadable response.
    case networkFailure = -47001
    /// A connect, idle or total timeout expired.
    case networkTimeout = -47002
    /// A request or response body exceeds its size cap.
    case bodyTooLarge = -47003
    /// TLS failed (certificate, handshake). Never retried.
    case tlsFailure = -47004
    /// The server asked the client to wait (429, or 5xx with `Retry-After`); repeats are answered locally.
    case throttled = -47005
    /// The server answered with a redirect, which swift-msal never follows.
    case unexpectedRedirect = -47006
    /// The authority URL is malformed or not allowed (scheme, host, path, userinfo, query).
    case invalidAuthority = -47010
    /// Instance discovery or OpenID metadata is malformed, incomplete or inconsistent.
    case invalidAuthorityMetadata = -47011
    /// Discovered metadata names an issuer other than the authority's.
    case authorityIssuerMismatch = -47012
    /// A discovered endpoint is on a foreign host or not on https.
    case insecureEndpoint = -47013
    /// The tenant does not exist (`invalid_tenant`, AADSTS90002).
    case invalidTenant = -47014

    /// The token cache document is not valid JSON or not the unified cache schema (it was moved aside).
    case cacheCorrupt = -48001
    /// The cache file could not be read or written (I/O error, disk full, read-only directory).
    case cacheIOFailure = -48002
    /// The cache file or its directory is unsafe: a symlink, another owner, or group/world access.
    case cacheUnsafeFile = -48003
    /// Another process held the cache lock for longer than the configured wait.
    case cacheLockTimeout = -48004
    /// The cache document is larger than the configured limit.
    case cacheTooLarge = -48005
    /// No cache location could be determined (neither `XDG_CACHE_HOME` nor `HOME` is usable).
    case cacheLocationUnavailable = -48006
    /// An app's cache serialization hook threw.
    case cacheHookFailed = -48007
    /// The Secret Service could not store or read the cache: libsecret is not installed, there is no
    /// D-Bus session bus or no keyring daemon on it, the keyring is locked and cannot be unlocked, or
    /// the daemon failed mid-operation (see `docs/cache-persistence.md`).
    case cacheSecretServiceUnavailable = -48008
    /// The app's partitioned token cache store (``MSALPartitionedTokenCacheStore``, such as
    /// PostgreSQL) threw while loading or storing a partition, or the operation cannot use one (it
    /// spans partitions, or it is synchronous).
    case cacheStoreFailed = -48009
    /// Other writers stored the operation's cache partition first at every attempt
    /// (``MSALCacheConfig/partitionWriteAttempts``); nothing of this operation was stored.
    case cacheWriteConflict = -48010

    // Web UI and interactive sign-in (−49000).
    /// No browser could be launched; ``MSALFailure/authorizationURL`` holds the URL for the user to open.
    case browserLaunchFailed = -49001
    /// No redirect arrived at the loopback listener before its timeout; the port was closed.
    case redirectTimeout = -49002
    /// The loopback redirect listener could not bind its port or serve.
    case loopbackListenerFailed = -49003
    /// A redirect carried the expected `state` but neither `code` nor `error`, or was otherwise unusable.
    case invalidRedirect = -49004
    /// The redirect's `iss` parameter (RFC 9207) names another issuer than the authority's, or is
    /// missing although the provider's metadata promises it: the response may come from another
    /// provider (a mix-up attack), so its code is not redeemed.
    case redirectIssuerMismatch = -49005
    /// The single-use start URL handed to the browser (see ``MSALWebUI/launchesExternalBrowser``) was
    /// requested a second time: another program on the machine read it, perhaps from the browser's command
    /// line, and may be signing in with it. The sign-in was stopped, whoever asked first; nothing was redeemed.
    case startURLReused = -49006
    /// The device code expired before the user finished signing in (`expired_token`).
    case deviceCodeExpired = -49010

    // Confidential client credentials (−53000).
    /// A client credential cannot be used: its PEM text holds no readable private key or
    /// certificate, a block is damaged, an encrypted key's password is missing or wrong, or its
    /// file cannot be read.
    case invalidCredential = -53001
    /// No certificate of a certificate credential has the private key's public half.
    case certificateKeyMismatch = -53002
    /// A certificate credential's private key is not an RSA key of at least 2048 bits (the
    /// identity platform signs client assertions with RSA only).
    case unsupportedCredentialKey = -53003
    /// A credential file, or the PEM text given for it, is larger than
    /// ``MSALClientCertificate/maximumSize`` (64 KiB); an assertion is larger than 16 KiB.
    case credentialTooLarge = -53004
    /// The application's client assertion provider threw, or returned something that is not a
    /// compact JWT; or the federated token file of workload identity is not set or cannot be read.
    case clientAssertionFailed = -53005
    /// The managed-identity source answered with an error, or with a success that has no usable
    /// token (no `access_token`, no or a bad expiry). The source's error and message are kept.
    case managedIdentityRequestFailed = -51001
    /// The endpoint the environment names for a managed-identity source is not an `http` or
    /// `https` URL (Service Fabric: not `https`).
    case invalidManagedIdentityEndpoint = -51002
    /// The detected source cannot serve this identity: a user-assigned identity on Azure Arc or
    /// Cloud Shell; on Service Fabric one named by client or resource id (the cluster decides);
    /// on Azure Machine Learning one named by object or resource id.
    case managedIdentityNotSupported = -51003
    /// Azure Arc's challenge cannot be answered safely: no or a malformed
    /// `WWW-Authenticate: Basic realm=` header, a key file outside the agent's token directory,
    /// not named `*.key`, not a regular file, larger than 4096 bytes, or unreadable.
    case managedIdentityChallengeRejected = -51004

    /// A protected API's request carries no usable bearer token: no `Authorization` header, another
    /// scheme than `Bearer`, or a value that is not a compact JWT.
    case accessTokenMissing = -52001
    /// A valid access token does not grant what the API requires: none of the required scopes
    /// (delegated) or roles (application permissions). The required ones are in
    /// ``MSALFailure/declinedScopes``.
    case insufficientPermission = -52002
    /// A protected API's request presents a sender-constrained access token (one with `cnf`) as a
    /// bearer token, or presents as `DPoP` a token that is not bound to a DPoP key.
    case accessTokenSchemeMismatch = -52003
    /// A protected API's DPoP request carries no DPoP proof, or one that fails RFC 9449 §4.3's checks:
    /// its signature, type, algorithm, method, URL, age, token hash, a `jti` seen before, or a key
    /// other than the one the token is bound to. Also a token endpoint's `invalid_dpop_proof`
    /// answer to the client's proof (the OAuth error is in ``MSALFailure/oauthError``).
    case dpopProofInvalid = -52004
    /// A protected API requires a DPoP nonce and the proof does not carry the current one; the nonce
    /// is in ``MSALFailure/httpHeaders`` (`DPoP-Nonce`), and ``MSALBearerChallenge`` answers with it.
    /// Also a token endpoint that answers `use_dpop_nonce` again after the library sent its proof
    /// once more with the nonce given, or without a usable `DPoP-Nonce` to send.
    case dpopNonceRequired = -52005
    /// A protected API's request presents a certificate-bound access token (`cnf` `x5t#S256`, RFC
    /// 8705 §3) over a connection without a client certificate, or with another certificate than
    /// the one the token is bound to.
    case certificateBindingMismatch = -52006
    /// A protected API's `PoP` request (MSAL's signed HTTP request) fails its checks: its
    /// signature by its `cnf.jwk`, a key other than the one the access token is bound to
    /// (`cnf.kid`), the method, host or path of this request, its age, or a replay.
    case signedRequestInvalid = -52007
}

extension MSALInternalError {
    /// ``internalErrorInvalidParameter``, by swift-msal's earlier name.
    @available(*, deprecated, renamed: "internalErrorInvalidParameter")
    public static var invalidParameter: MSALInternalError { .internalErrorInvalidParameter }
    /// ``internalErrorRedirectSchemeNotRegistered``, by swift-msal's earlier name.
    @available(*, deprecated, renamed: "internalErrorRedirectSchemeNotRegistered")
    public static var redirectSchemeNotRegistered: MSALInternalError { .internalErrorRedirectSchemeNotRegistered }
    /// ``internalErrorInvalidRequest``, by swift-msal's earlier name.
    @available(*, deprecated, renamed: "internalErrorInvalidRequest")
    public static var invalidRequest: MSALInternalError { .internalErrorInvalidRequest }
    /// ``internalErrorInvalidClient``, by swift-msal's earlier name.
    @available(*, deprecated, renamed: "internalErrorInvalidClient")
    public static var invalidClient: MSALInternalError { .internalErrorInvalidClient }
    /// ``internalErrorInvalidGrant``, by swift-msal's earlier name.
    @available(*, deprecated, renamed: "internalErrorInvalidGrant")
    public static var invalidGrant: MSALInternalError { .internalErrorInvalidGrant }
    /// ``internalErrorInvalidScope``, by swift-msal's earlier name.
    @available(*, deprecated, renamed: "internalErrorInvalidScope")
    public static var invalidScope: MSALInternalError { .internalErrorInvalidScope }
    /// ``internalErrorUnauthorizedClient``, by swift-msal's earlier name.
    @available(*, deprecated, renamed: "internalErrorUnauthorizedClient")
    public static var unauthorizedClient: MSALInternalError { .internalErrorUnauthorizedClient }
    /// ``internalErrorUnhandledResponse``, by swift-msal's earlier name.
    @available(*, deprecated, renamed: "internalErrorUnhandledResponse")
    public static var unhandledResponse: MSALInternalError { .internalErrorUnhandledResponse }
    /// ``internalErrorUnexpected``, by swift-msal's earlier name.
    @available(*, deprecated, renamed: "internalErrorUnexpected")
    public static var unexpected: MSALInternalError { .internalErrorUnexpected }
    /// ``internalErrorUnexpectedHttpResponse``, by swift-msal's earlier name.
    @available(*, deprecated, renamed: "internalErrorUnexpectedHttpResponse")
    public static var unexpectedHttpResponse: MSALInternalError { .internalErrorUnexpectedHttpResponse }
    /// ``internalErrorFailedAuthorityValidation``, by swift-msal's earlier name.
    @available(*, deprecated, renamed: "internalErrorFailedAuthorityValidation")
    public static var failedAuthorityValidation: MSALInternalError { .internalErrorFailedAuthorityValidation }
    /// ``internalErrorInvalidRedirectURI``, by swift-msal's earlier name.
    @available(*, deprecated, renamed: "internalErrorInvalidRedirectURI")
    public static var invalidRedirectURI: MSALInternalError { .internalErrorInvalidRedirectURI }
    /// ``internalErrorMismatchedUser``, by swift-msal's earlier name.
    @available(*, deprecated, renamed: "internalErrorMismatchedUser")
    public static var mismatchedUser: MSALInternalError { .internalErrorMismatchedUser }
    /// ``internalErrorAmbiguousAccount``, by swift-msal's earlier name.
    @available(*, deprecated, renamed: "internalErrorAmbiguousAccount")
    public static var ambiguousAccount: MSALInternalError { .internalErrorAmbiguousAccount }
    /// ``internalErrorAuthorizationFailed``, by swift-msal's earlier name.
    @available(*, deprecated, renamed: "internalErrorAuthorizationFailed")
    public static var authorizationFailed: MSALInternalError { .internalErrorAuthorizationFailed }
    /// ``internalErrorAccountRequired``, by swift-msal's earlier name.
    @available(*, deprecated, renamed: "internalErrorAccountRequired")
    public static var accountRequired: MSALInternalError { .internalErrorAccountRequired }
    /// ``internalErrorSessionCanceled``, by swift-msal's earlier name.
    @available(*, deprecated, renamed: "internalErrorSessionCanceled")
    public static var sessionCanceled: MSALInternalError { .internalErrorSessionCanceled }
    /// ``internalErrorInteractiveSessionAlreadyRunning``, by swift-msal's earlier name.
    @available(*, deprecated, renamed: "internalErrorInteractiveSessionAlreadyRunning")
    public static var interactiveSessionAlreadyRunning: MSALInternalError { .internalErrorInteractiveSessionAlreadyRunning }
    /// ``internalErrorInvalidState``, by swift-msal's earlier name.
    @available(*, deprecated, renamed: "internalErrorInvalidState")
    public static var invalidState: MSALInternalError { .internalErrorInvalidState }
    /// ``internalErrorInvalidResponse``, by swift-msal's earlier name.
    @available(*, deprecated, renamed: "internalErrorInvalidResponse")
    public static var invalidResponse: MSALInternalError { .internalErrorInvalidResponse }
    /// ``internalErrorNonHttpsRedirect``, by swift-msal's earlier name.
    @available(*, deprecated, renamed: "internalErrorNonHttpsRedirect")
    public static var nonHttpsRedirect: MSALInternalError { .internalErrorNonHttpsRedirect }
}
