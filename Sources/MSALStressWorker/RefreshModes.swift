import Foundation
import Glibc
import MSAL

/// Modes for the cross-process refresh lock (issue 19, finding 8): processes sharing one cache file
/// refresh one account against a real OpenID provider with refresh-token rotation and reuse detection.
enum RefreshModes {
    static let all: [String: WorkerMode] = [
        "oidc-refresh": WorkerMode(usage: "ISSUER CLIENT_ID CACHE SCOPE COUNT", run: refresh),
        "refresh-lock-hold": WorkerMode(usage: "ISSUER CLIENT_ID CACHE SECONDS", run: hold),
    ]

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The application of a generic OpenID Connect provider on loopback, with the cache file `cache`.
    static func application(issuer: String, clientID: String, cache: String) throws -> MSALPublicClientApplication {
        guard let url = URL(string: issuer) else { throw Failure(description: "bad issuer \(issuer)") }
        let authority = try MSALOIDCAuthority(url: url, options: [.allowInsecureLoopback])
        let configuration = MSALPublicClientApplicationConfig(clientId: clientID, redirectUri: nil, authority: authority)
        configuration.cacheConfig = MSALCacheConfig(storage: .file(path: cache), fileLockTimeout: 300)
        return try MSALPublicClientApplication(configuration: configuration)
    }

    /// COUNT forced refreshes, one after another, of the one account in CACHE (signed in by the test).
    /// Prints `ok FROM_PROVIDER FROM_CACHE`: a forced refresh answered from the cache used the token
    /// another process obtained after this call was made.
    static func refresh(_ arguments: [String]) throws {
        let usage = "usage: oidc-refresh ISSUER CLIENT_ID CACHE SCOPE COUNT"
        guard arguments.count == 5 else { WorkerMode.fail(usage: usage) }
        let count = WorkerMode.count(arguments, 4, usage)
        let application = try application(issuer: arguments[0], clientID: arguments[1], cache: arguments[2])
        let scope = arguments[3]
        try WorkerMode.runBlocking {
            guard let account = try application.allAccounts().first else { throw Failure(description: "no account in the cache") }
            var fromProvider = 0
            var fromCache = 0
            for index in 1...count {
                let parameters = MSALSilentTokenParameters(scopes: [scope], account: account)
                parameters.forceRefresh = true
                do {
                    let result = try await application.acquireTokenSilent(with: parameters)
                    if result.tokenSource == .identityProvider { fromProvider += 1 } else { fromCache += 1 }
                } catch let error as MSALFailure {
                    throw Failure(
                        description:
                            "refresh \(index) of \(count): \(error.code) \(String(describing: error.internalCode)) \(error.oauthError ?? "") \(error.message)"
                    )
                }
            }
            WorkerMode.emit("ok \(fromProvider) \(fromCache)\n", to: STDOUT_FILENO)
        }
    }

    /// Takes the refresh lock of the one account in CACHE, prints `held`, and keeps it SECONDS seconds
    /// (a test kills it meanwhile: the kernel must release the lock).
    static func hold(_ arguments: [String]) throws {
        let usage = "usage: refresh-lock-hold ISSUER CLIENT_ID CACHE SECONDS"
        guard arguments.count == 4 else { WorkerMode.fail(usage: usage) }
        let seconds = WorkerMode.count(arguments, 3, usage)
        let application = try application(issuer: arguments[0], clientID: arguments[1], cache: arguments[2])
        let authority = try MSALOIDCAuthority(url: URL(string: arguments[0])!, options: [.allowInsecureLoopback])
        let cache = try TokenCache(config: MSALCacheConfig(storage: .file(path: arguments[2]), fileLockTimeout: 300))
        try WorkerMode.runBlocking {
            guard let account = try application.allAccounts().first, let identifier = account.identifier else {
                throw Failure(description: "no account in the cache")
            }
            let key = SilentFlow.refreshLockKey(accountIdentifier: identifier, authority: authority)
            guard let lock = try await cache.refreshLock(for: key, timeout: 30) else {
                throw Failure(description: "no refresh lock for a file cache")
            }
            WorkerMode.emit("held\n", to: STDOUT_FILENO)
            try await Task.sleep(for: .seconds(seconds))
            lock.release()
        }
    }
}
