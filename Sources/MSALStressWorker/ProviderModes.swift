import Foundation
import MSAL
import MSALEmulator
import MSALSupport

/// Modes running the whole SDK (sign-in, forced refresh, cache hits) against an `MSALEmulator` that
/// the test process runs, on a cache file shared with other worker processes.
enum ProviderModes {
    static let all: [String: WorkerMode] = [
        "provider-stress": WorkerMode(usage: "AUTHORITY CLIENT_ID CACHE USER[,USER…] ROUNDS TASKS", run: stress)
    ]

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A web UI that answers the emulator's sign-in page over HTTP as one user.
    final class PageWebUI: MSALWebUI {
        let username: String

        init(username: String) {
            self.username = username
        }

        func present(authorizationURL: URL, redirectURI: URL) async throws -> URL? {
            try await MSALEmulator.SignInDriver(username: username).signIn(authorizationURL: authorizationURL)
        }
    }

    /// Signs each user in interactively, then ROUNDS times, for all users at once: TASKS concurrent
    /// forced refreshes of the user's token (one request: they share it), then a silent call that
    /// must be a cache hit returning that token. Every step goes through the cache file, which other
    /// processes write at the same time for their own users. A lost update shows as a rotated refresh
    /// token used again, which the emulator refuses (and the worker fails). Prints
    /// `ok USERS ROUNDS` on success.
    static func stress(_ arguments: [String]) throws {
        let usage = "usage: provider-stress AUTHORITY CLIENT_ID CACHE USER[,USER…] ROUNDS TASKS"
        guard arguments.count == 6, let authorityURL = URL(string: arguments[0]) else { WorkerMode.fail(usage: usage) }
        let users = arguments[3].split(separator: ",").map(String.init)
        let rounds = WorkerMode.count(arguments, 4, usage)
        let tasks = WorkerMode.count(arguments, 5, usage)
        let configuration = MSALPublicClientApplicationConfig(
            clientId: arguments[1], redirectUri: nil,
            authority: try MSALAADAuthority(url: authorityURL, options: .allowInsecureLoopback))
        configuration.cacheConfig = MSALCacheConfig(storage: .file(path: arguments[2]), fileLockTimeout: 300)
        let application = try MSALPublicClientApplication(configuration: configuration)
        try WorkerMode.runBlocking {
            var accounts: [String: MSALAccount] = [:]
            for user in users {
                let parameters = MSALInteractiveTokenParameters(
                    scopes: ["User.Read"], webviewParameters: MSALWebviewParameters(webUI: PageWebUI(username: user)))
                accounts[user] = try await application.acquireToken(with: parameters).account
            }
            for round in 1...rounds {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for user in users {
                        let account = accounts[user]!
                        group.addTask {
                            try await refreshAndHit(application, account: account, user: user, round: round, tasks: tasks)
                        }
                    }
                    try await group.waitForAll()
                }
            }
        }
        WorkerMode.emit("ok \(users.count) \(rounds)\n", to: STDOUT_FILENO)
    }

    private static func refreshAndHit(
        _ application: MSALPublicClientApplication, account: MSALAccount, user: String, round: Int, tasks: Int
    ) async throws {
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
                    parameters.forceRefresh = true
                    let result = try await application.acquireTokenSilent(with: parameters)
                    guard result.tokenSource == .identityProvider else {
                        throw Failure(description: "\(user) round \(round): a forced refresh answered from the cache")
                    }
                    return result.accessToken
                }
            }
            var tokens = Set<String>()
            for try await token in group { tokens.insert(token) }
            return tokens
        }
        guard tokens.count == 1, let token = tokens.first else {
            throw Failure(
                description: "\(user) round \(round): \(tasks) concurrent forced refreshes gave \(tokens.count) tokens, not one shared")
        }
        let hit = try await application.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        guard hit.tokenSource == .cache, hit.accessToken == token else {
            throw Failure(description: "\(user) round \(round): the silent call after the refresh was not a cache hit with the new token")
        }
    }
}
