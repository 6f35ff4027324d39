import Foundation
import MSAL
import MSALEmulator

/// An emulator on an ephemeral loopback port with ``LoadDirectory``'s users, and one application
/// with every user signed in interactively (the emulator's page driven over HTTP).
final class LoadFixture: Sendable {
    /// Where the application keeps its tokens.
    enum Cache: Sendable {
        case memory
        /// A file in a fresh private folder, removed at shutdown.
        case file
    }

    let emulator: MSALEmulator
    let application: MSALPublicClientApplication
    /// The account of user `i` at index `i`.
    let accounts: [MSALAccount]
    /// `http://127.0.0.1:<port>/<tenant id>/oauth2/v2.0/token`: where the SDK sends refreshes (a
    /// silent request on `common` goes to the account's home tenant).
    let tokenEndpoint: URL
    /// The scratch folder of a file cache.
    let folder: String?

    private init(emulator: MSALEmulator, application: MSALPublicClientApplication, accounts: [MSALAccount], folder: String?) {
        self.emulator = emulator
        self.application = application
        self.accounts = accounts
        self.folder = folder
        self.tokenEndpoint = emulator.authorityURL(tenant: LoadDirectory.tenantID).appendingPathComponent("oauth2/v2.0/token")
    }

    /// Starts an emulator and signs `users` users in to a new application.
    static func start(users: Int, cache: Cache) async throws -> LoadFixture {
        let emulator = try MSALEmulator(configuration: LoadDirectory.configuration(users: users))
        try await emulator.start()
        var folder: String?
        var storage = MSALCacheConfig.Storage.memory
        if case .file = cache {
            let path = try makeScratchFolder()
            folder = path
            storage = .file(path: path + "/token_cache.json")
        }
        let application = try makeApplication(emulator, storage: storage)
        var accounts: [MSALAccount] = []
        for index in 0..<users {
            do {
                accounts.append(try await signIn(application, index))
            } catch {
                FileHandle.standardError.write(Data("ProviderLoad: signing user \(index) in failed: \(error)\n".utf8))
                throw error
            }
        }
        require(emulator.requestCount(.token, grantType: .authorizationCode) == users, "one code redemption per user")
        return LoadFixture(emulator: emulator, application: application, accounts: accounts, folder: folder)
    }

    /// An application of ``LoadDirectory/clientID`` on the emulator's `common` authority, with
    /// the default URLSession transport and the system clock.
    static func makeApplication(_ emulator: MSALEmulator, storage: MSALCacheConfig.Storage) throws -> MSALPublicClientApplication {
        let authority = try MSALAADAuthority(url: emulator.authorityURL(tenant: "common"), options: .allowInsecureLoopback)
        let configuration = MSALPublicClientApplicationConfig(clientId: LoadDirectory.clientID, redirectUri: nil, authority: authority)
        configuration.cacheConfig = MSALCacheConfig(storage: storage)
        return try MSALPublicClientApplication(configuration: configuration)
    }

    /// Signs user `index` in through the emulator's sign-in page.
    static func signIn(_ application: MSALPublicClientApplication, _ index: Int) async throws -> MSALAccount {
        let webUI = SignInPageWebUI(username: LoadDirectory.username(index))
        let parameters = MSALInteractiveTokenParameters(
            scopes: LoadDirectory.scopes, webviewParameters: MSALWebviewParameters(webUI: webUI))
        let result = try await application.acquireToken(with: parameters)
        require(
            result.account.username == LoadDirectory.username(index), "signed in \(result.account.username ?? "nobody"), not user \(index)")
        return result.account
    }

    /// A private folder under the temporary directory.
    static func makeScratchFolder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("msal-provider-load-\(getpid())-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return path
    }

    /// Signs every user in once more, in a separate application whose cache is a file, and returns
    /// the refresh token of each user (index `i` for user `i`) from that file: tokens of their own
    /// sign-ins, which the baselines redeem without disturbing ``application``'s.
    func separateRefreshTokens() async throws -> [String] {
        let scratch = try Self.makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let path = scratch + "/token_cache.json"
        let helper = try Self.makeApplication(emulator, storage: .file(path: path))
        for index in accounts.indices {
            _ = try await Self.signIn(helper, index)
        }
        guard let data = FileManager.default.contents(atPath: path),
            let document = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let section = document["RefreshToken"] as? [String: [String: Any]]
        else { fail("the helper's cache file has no RefreshToken section") }
        var byHome: [String: String] = [:]
        for entry in section.values {
            if let home = entry["home_account_id"] as? String, let secret = entry["secret"] as? String { byHome[home] = secret }
        }
        return accounts.indices.map { index in
            let home = LoadDirectory.objectID(index) + "." + LoadDirectory.tenantID
            guard let secret = byHome[home] else { fail("no refresh token for user \(index) in the helper's cache") }
            return secret
        }
    }

    /// Stops the emulator and removes the cache folder.
    func shutdown() async {
        try? await emulator.shutdown()
        if let folder { try? FileManager.default.removeItem(atPath: folder) }
    }
}
