// README.md, "Configuration" (and the DocC articles): authorities, the token cache, device code
// sign-in, logging and HTTP settings. ConfigurationSnippetTests runs every function here except
// `configureLoggingAndHTTP()`, which changes process-wide settings that other suites check: it is
// compiled, not run. `PartitionedCacheSerializer` needs a confidential client and its provider: it
// is compiled here, and a store doing the same runs against the local provider in
// MSALEmulatorTests (PartitionedCacheTests); so is `VersionedPartitionStore`
// (PartitionedStoreTests). `proofOfPossessionHeader` is compiled only: the same calls run against
// the local provider in MSALEmulatorTests (ProofOfPossessionSignInTests). `mutualTLSAppTokenHeader`
// is compiled only (a real certificate and provider): the same credential gets bound app tokens
// from glewlwyd in MSALCommandLineTests (ProviderMutualTLSTests).

import Foundation
import MSAL
import MSALSupport

/// One authority of each kind.
func authorityExamples() throws -> [MSALAuthority] {
    let organization = try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/contoso.onmicrosoft.com")!)
    let usGovernment = try MSALAADAuthority(
        cloudInstance: .usGovernmentCloudInstance, audienceType: .azureADMultipleOrgsAudience, rawTenant: nil)
    let b2c = try MSALB2CAuthority(url: URL(string: "https://contoso.b2clogin.com/contoso.onmicrosoft.com/B2C_1_signupsignin")!)
    let ciam = try MSALCIAMAuthority(url: URL(string: "https://contoso.ciamlogin.com")!)
    let adfs = try MSALADFSAuthority(url: URL(string: "https://sts.contoso.com/adfs")!)
    let oidc = try MSALOIDCAuthority(url: URL(string: "https://accounts.example.com")!)
    // An MSALB2CAuthority:
    let detected = try MSALAuthority.authority(url: URL(string: "https://contoso.b2clogin.com/contoso.onmicrosoft.com/B2C_1_edit")!)
    return [organization, usGovernment, b2c, ciam, adfs, oidc, detected]
}

/// An application signing in against an identity provider on this machine (such as `msal emulator`).
func localProviderApplication(port: Int) throws -> MSALPublicClientApplication {
    let local = try MSALAuthority.authority(url: URL(string: "http://127.0.0.1:\(port)/common")!, options: [.allowInsecureLoopback])
    let config = MSALPublicClientApplicationConfig(clientId: kClientID, redirectUri: nil, authority: local)
    config.knownAuthorities = [local]  // trusted as given: no instance discovery for a local host
    return try MSALPublicClientApplication(configuration: config)
}

/// An application whose token cache is a file of its choice.
func fileCacheApplication() throws -> MSALPublicClientApplication {
    let config = MSALPublicClientApplicationConfig(clientId: kClientID)
    config.cacheConfig = MSALCacheConfig(storage: .file(path: "/var/lib/my-app/token_cache.json"), fileLockTimeout: 5)
    return try MSALPublicClientApplication(configuration: config)
}

/// An application that signs in through Microsoft's Linux identity broker on an Intune-enrolled
/// machine, and in the browser where none answers (README "The Linux identity broker").
func brokeredApplication() throws -> MSALPublicClientApplication {
    let config = MSALPublicClientApplicationConfig(clientId: kClientID)
    config.linuxBroker = MSALLinuxBrokerOptions()  // the session bus; the browser when no broker answers
    return try MSALPublicClientApplication(configuration: config)
}

/// An application whose token cache is in the desktop keyring, shared with MSAL for Python apps that
/// use msal-extensions with the same signal file.
func keyringCacheApplication() throws -> MSALPublicClientApplication {
    let config = MSALPublicClientApplicationConfig(clientId: kClientID)
    let keyring = MSALSecretServiceStorage(signalFilePath: "~/.cache/my-app/token_cache.signal", fallback: .fail)
    config.cacheConfig = MSALCacheConfig(storage: .secretService(keyring))
    return try MSALPublicClientApplication(configuration: config)
}

/// Keeps the token cache in the app's own storage: here a value in memory, standing in for a
/// database row or a secret-service item.
final class AppStorageCacheSerializer: MSALTokenCacheSerializer {
    private let stored = Mutex<Data?>(nil)

    func beforeAccess(_ access: MSALTokenCacheAccess) throws {
        if let data = stored.withLock({ $0 }) {
            try access.deserialize(data)  // the unified format of every MSAL library
        }
    }

    func afterAccess(_ access: MSALTokenCacheAccess) throws {
        guard access.hasStateChanged else { return }
        let data = access.serialize()
        stored.withLock { $0 = data }
    }
}

// Not in the README: what the tests look at.
extension AppStorageCacheSerializer {
    /// What the store holds now.
    var storedDocument: Data? { stored.withLock { $0 } }

    /// Puts a cache document in the store, as if an earlier run had left it there.
    func store(_ data: Data) { stored.withLock { $0 = data } }
}

/// Keeps a confidential client's token cache in partitions, one per suggested key: here a
/// dictionary, standing in for a database table or a distributed cache.
final class PartitionedCacheSerializer: MSALTokenCacheSerializer {
    private let partitions = Mutex<[String: Data]>([:])

    var storesPartitions: Bool { true }

    func beforeAccess(_ access: MSALTokenCacheAccess) throws {
        guard let key = access.suggestedCacheKey else { return }
        if let data = partitions.withLock({ $0[key] }) {
            try access.deserialize(data)
        }
    }

    func afterAccess(_ access: MSALTokenCacheAccess) throws {
        guard access.hasStateChanged, let key = access.suggestedCacheKey else { return }
        let data = access.hasTokens ? access.serialize() : nil  // an emptied partition is dropped
        partitions.withLock { $0[key] = data }
    }
}

/// Keeps the partitions of a service's token cache with a version each, as a table with a version
/// column does: a store succeeds only over the version the operation read.
final class VersionedPartitionStore: MSALPartitionedTokenCacheStore {
    private let table = Mutex((rows: [String: MSALTokenCachePartitionRecord](), lastVersion: Int64(0)))

    func load(partition key: String) async throws -> MSALTokenCachePartitionRecord? {
        table.withLock { $0.rows[key] }
    }

    func store(partition key: String, data: Data?, expiresOn: Date?, replacing version: Int64?) async throws -> Bool {
        table.withLock { table in
            guard table.rows[key]?.version == version else { return false }  // another replica stored first
            table.lastVersion += 1  // never reused, even after a removal
            table.rows[key] = data.map { MSALTokenCachePartitionRecord(data: $0, version: table.lastVersion) }
            return true
        }
    }
}

/// A service's confidential client whose partitions, read from the shared store, are answered
/// from memory for 30 s (DocC "Token cache").
func readThroughConfiguration(
    clientID: String, secret: String, authority: MSALAuthority
) throws -> (MSALConfidentialClientApplicationConfig, MSALReadThroughTokenCacheStore) {
    let copy = try MSALReadThroughTokenCacheStore(VersionedPartitionStore(), maximumAge: .seconds(30))
    let configuration = MSALConfidentialClientApplicationConfig(
        clientId: clientID, clientCredential: .secret(secret), authority: authority)
    configuration.cacheConfig = MSALCacheConfig(storage: .partitioned(copy))
    return (configuration, copy)
}

/// An application whose token cache lives in `storage`.
func customCacheApplication(storage: AppStorageCacheSerializer) throws -> MSALPublicClientApplication {
    let config = MSALPublicClientApplicationConfig(clientId: kClientID)
    config.cacheConfig = MSALCacheConfig(storage: .custom(storage))
    return try MSALPublicClientApplication(configuration: config)
}

/// Signs in on a machine without a browser: the user enters a code on another device.
func signInWithDeviceCode(_ application: MSALPublicClientApplication, scopes: [String]) async throws -> MSALResult {
    let parameters = MSALTokenParameters(scopes: scopes)
    return try await application.acquireTokenWithDeviceCode(with: parameters) { info in
        // "To sign in, use a web browser to open the page https://microsoft.com/devicelogin and enter the code …"
        print(info.message)
    }
}

/// The `Authorization` header for one call to `url`: a token bound to this application's key,
/// presented as a signed HTTP request for that call (`PoP eyJ…`).
func proofOfPossessionHeader(_ application: MSALPublicClientApplication, account: MSALAccount, url: URL) async throws -> String {
    let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
    parameters.authenticationScheme = MSALAuthenticationSchemePop(httpMethod: .GET, request: url, nonce: nil, additionalParameters: nil)
    return try await application.acquireTokenSilent(with: parameters).authorizationHeader
}

/// The `Authorization` and `DPoP` headers for one call to `url` with a DPoP-bound token; `nonce`
/// is the resource's `DPoP-Nonce` when it asked for one (`MSALResult.dpopNonce`).
func dpopHeaders(
    _ application: MSALPublicClientApplication, account: MSALAccount, url: URL, nonce: String? = nil
) async throws -> [String: String] {
    let parameters = MSALSilentTokenParameters(scopes: ["api://orders/read"], account: account)
    parameters.authenticationScheme = MSALAuthenticationSchemeDPoP()
    let result = try await application.acquireTokenSilent(with: parameters)
    return [
        "Authorization": result.authorizationHeader,
        "DPoP": try result.dpopProof(httpMethod: .GET, requestUrl: url, nonce: nonce),
    ]
}

/// A service's app token bound to its certificate, which authenticates it in the TLS handshake of
/// the token request (RFC 8705). From Microsoft Entra it is an mTLS proof-of-possession token
/// (`mtls_pop eyJ…`); other providers bind a `Bearer` token. The API takes either only over a TLS
/// connection made with the same certificate.
func mutualTLSAppTokenHeader(authority: MSALAuthority) async throws -> String {
    let certificate = try MSALClientCertificate(privateKeyFile: "/etc/myservice/key.pem", certificateFile: "/etc/myservice/cert.pem")
    let app = try MSALConfidentialClientApplication(
        clientId: "11111111-2222-3333-4444-555555555555",
        clientCredential: .tlsClientCertificate(certificate),
        authority: authority)
    let parameters = MSALClientCredentialParameters(scopes: ["api://orders/.default"])
    if authority.kind == .aad {
        parameters.authenticationScheme = MSALAuthenticationSchemeMutualTLSPop()
    }
    return try await app.acquireTokenForClient(with: parameters).authorizationHeader
}

/// Process-wide logging and HTTP settings, set once at launch.
func configureLoggingAndHTTP() {
    MSALGlobalConfig.loggerConfig.logLevel = .info  // default .error
    MSALGlobalConfig.loggerConfig.logMaskingLevel = .settingsMaskAllPII  // the default: no user or account ids
    MSALGlobalConfig.loggerConfig.setLogCallback { level, message, containsPII in
        if let message, !containsPII { print(level, message) }
    }
    MSALGlobalConfig.httpConfig.timeoutIntervalForRequest = 20  // seconds
    MSALGlobalConfig.httpConfig.retryCount = 1  // one retry of idempotent requests on 5xx/timeouts
}
