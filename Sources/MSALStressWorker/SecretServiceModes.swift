import Foundation
import MSAL
import MSALEmulator

/// Modes running the SDK with its cache in the Secret Service (or a fallback), against an
/// `MSALEmulator` the test process runs, inside the private D-Bus session the test started.
enum SecretServiceModes {
    static let all: [String: WorkerMode] = [
        "secret-sign-in": WorkerMode(usage: "AUTHORITY CLIENT_ID STORAGE USER", run: signIn),
        "secret-silent": WorkerMode(usage: "AUTHORITY CLIENT_ID STORAGE", run: silent),
    ]

    /// The cache configuration a STORAGE argument names:
    /// `file:PATH`, `memory`, `secret:SIGNAL`, `secret-or-memory:SIGNAL`, `secret-or-file:SIGNAL:PATH`.
    ///
    /// `MSAL_STRESS_SECRET_SERVICE_TIMEOUT` (seconds) sets the Secret Service's `operationTimeout`.
    static func cacheConfig(_ storage: String) -> MSALCacheConfig {
        let parts = storage.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        let timeout = ProcessInfo.processInfo.environment["MSAL_STRESS_SECRET_SERVICE_TIMEOUT"].flatMap(Double.init) ?? 25
        func secret(_ fallback: MSALSecretServiceStorage.Fallback) -> MSALCacheConfig {
            MSALCacheConfig(
                storage: .secretService(MSALSecretServiceStorage(signalFilePath: parts[1], fallback: fallback, operationTimeout: timeout)),
                fileLockTimeout: 300)
        }
        switch (parts.first, parts.count) {
        case ("file", 2): return MSALCacheConfig(storage: .file(path: parts[1]), fileLockTimeout: 300)
        case ("memory", 1): return MSALCacheConfig(storage: .memory)
        case ("secret", 2): return secret(.fail)
        case ("secret-or-memory", 2): return secret(.memory)
        case ("secret-or-file", 3): return secret(.file(path: parts[2]))
        default:
            WorkerMode.fail(usage: "STORAGE is file:PATH, memory, secret:SIGNAL, secret-or-memory:SIGNAL or secret-or-file:SIGNAL:PATH")
        }
    }

    static func application(_ arguments: [String]) throws -> MSALPublicClientApplication {
        guard let authorityURL = URL(string: arguments[0]) else { WorkerMode.fail(usage: "AUTHORITY must be a URL") }
        let configuration = MSALPublicClientApplicationConfig(
            clientId: arguments[1], redirectUri: nil,
            authority: try MSALAADAuthority(url: authorityURL, options: .allowInsecureLoopback))
        configuration.cacheConfig = cacheConfig(arguments[2])
        return try MSALPublicClientApplication(configuration: configuration)
    }

    /// Prints one JSON line: the tokens the result holds, where it came from, and which storage answered.
    static func report(_ result: MSALResult, _ application: MSALPublicClientApplication) throws {
        let line: [String: String] = [
            "access_token": result.accessToken, "id_token": result.idToken ?? "",
            "source": result.tokenSource == .cache ? "cache" : "identity_provider",
            "account": result.account.identifier ?? "", "storage": application.cache.storageDescription,
        ]
        let data = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
        WorkerMode.emit(String(decoding: data, as: UTF8.self) + "\n", to: STDOUT_FILENO)
    }

    /// Signs USER in interactively (the emulator's page answered over HTTP) and reports the result.
    static func signIn(_ arguments: [String]) throws {
        guard arguments.count == 4 else { WorkerMode.fail(usage: "usage: secret-sign-in AUTHORITY CLIENT_ID STORAGE USER") }
        let application = try application(arguments)
        let user = arguments[3]
        try WorkerMode.runBlocking {
            let parameters = MSALInteractiveTokenParameters(
                scopes: ["User.Read"], webviewParameters: MSALWebviewParameters(webUI: ProviderModes.PageWebUI(username: user)))
            try report(try await application.acquireToken(with: parameters), application)
        }
    }

    /// Takes the cache's only account and asks for a token silently; reports the result.
    static func silent(_ arguments: [String]) throws {
        guard arguments.count == 3 else { WorkerMode.fail(usage: "usage: secret-silent AUTHORITY CLIENT_ID STORAGE") }
        let application = try application(arguments)
        try WorkerMode.runBlocking {
            let accounts = try application.allAccounts()
            guard accounts.count == 1 else {
                throw ProviderModes.Failure(description: "expected one account in the cache, found \(accounts.count)")
            }
            let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: accounts[0])
            try report(try await application.acquireTokenSilent(with: parameters), application)
        }
    }
}
