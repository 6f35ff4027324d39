/// The precise cause behind an ``MSALError``, carried in `userInfo[MSALInternalErrorCodeKey]`.
///
/// Values from −42000 to −42999 are MSAL for iOS/macOS's own. Values from
/// −46000 are swift-msal's additions for ID-token and JOSE failures, which
/// MSAL for iOS does not verify. Values from −47000 are swift-msal's
/// additions for the network, throttling and authority metadata. Values from −49000 are swift-msal's
/// additions for the web UI and interactive sign-in; from −50000 for confidential-client
/// credentials; from −51000 for managed identity; from −52000 for validating the access tokens a
/// protected API receives (their signature and claims failures use the −46000 codes of ID tokens).
/// Meant for diagnostics; handle ``MSALError/Code``.
public enum MSALInternalError: Int, Sendable, CaseIterable, Hashable {
    /// A required parameter was missing or invalid.
    case invalidParameter = -42000
    /// The redirect scheme is not registered.
    case redirectSchemeNotRegistered = -42001
    /// Protocol error, such as a missing required parameter.
    case invalidRequest = -42002
    /// Client authentication failed.
    case invalidClient = -42003
    /// The grant (code or refresh token) is invalid or expired.
    case invalidGrant = -42004
    /// The scope parameter is invalid.
    case invalidScope = -42005
    /// The client is not permitted to request this.
    case unauthorizedClient = -42006
    /// The server returned an unexpected HTTP response.
    case unhandledResponse = -42007
    /// An unexpected error inside swift-msal.
    case unexpected = -42008
    /// The authority did not pass validation.
    case failedAuthorityValidation = -42010
    /// The redirect URI is invalid.
    case invalidRedirectURI = -42011
    /// The signed-in user is not the expected one.
    case mismatchedUser = -42101
    /// Several accounts match where one was expected.
    case ambiguousAccount = -42102
    /// The user or application failed to authenticate interactively.
    case authorizationFailed = -42104
    /// A silent request needs an account.
    case accountRequired = -42106
    /// The request was canceled programmatically.
    case sessionCanceled = -42401
    /// An interactive session is already running.
    case interactiveSessionAlreadyRunning = -42402
    /// The `state` returned does not match the one sent.
    case invalidState = -42501
    /// The response body was invalid.
    case invalidResponse = -42600
    /// The server tried to redirect to a non-https URL.
    case nonHttpsRedirect = -42602

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
    /// No browser could be launched; ``MSALError/authorizationURL`` holds the URL for the user to open.
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

    // Confidential client credentials (−50000).
    /// A client credential cannot be used: its PEM text holds no readable private key or
    /// certificate, a block is damaged, an encrypted key's password is missing or wrong, or its
    /// file cannot be read.
    case invalidCredential = -50001
    /// No certificate of a certificate credential has the private key's public half.
    case certificateKeyMismatch = -50002
    /// A certificate credential's private key is not an RSA key of at least 2048 bits (the
    /// identity platform signs client assertions with RSA only).
    case unsupportedCredentialKey = -50003
    /// A credential file, or the PEM text given for it, is larger than
    /// ``MSALClientCertificate/maximumSize`` (64 KiB); an assertion is larger than 16 KiB.
    case credentialTooLarge = -50004
    /// The application's client assertion provider threw, or returned something that is not a
    /// compact JWT; or the federated token file of workload identity is not set or cannot be read.
    case clientAssertionFailed = -50005
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
    /// ``MSALError/declinedScopes``.
    case insufficientPermission = -52002
}
