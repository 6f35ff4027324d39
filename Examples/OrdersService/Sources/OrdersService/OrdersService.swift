import ArgumentParser
import AsyncHTTPClient
import Foundation
import Hummingbird
import MSAL
import MSALAsyncHTTPClient
import MSALPostgresTokenCache
import NIOPosix
import PostgresNIO

/// The orders API: validates callers' tokens (scope `Orders.Read` by default) and calls a
/// downstream API on their behalf, with its token cache in PostgreSQL shared by its replicas.
/// Secrets (the client secret, the cache encryption key) are read from files, never arguments.
@main
struct OrdersService: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orders-service", abstract: "An API protected by swift-msal, calling a downstream API on behalf of its callers.")

    @Option(help: "The port to listen on (127.0.0.1).") var port = 8080
    @Option(
        name: .customLong("public-url"),
        help: "The URL clients call the service at (DPoP proofs name it): default http://127.0.0.1:<port>.")
    var publicURL: String?
    @Option(help: "The authority whose tokens the API accepts, with its tenant.") var authority: String
    @Option(help: "The API's client id (registered with a secret).") var clientId: String
    @Option(help: "A file holding the API's client secret.") var clientSecretFile: String
    @Option(help: "The scope a caller's token must carry.") var requiredScope = "Orders.Read"
    @Option(help: "The downstream API's URL, called as the caller.") var downstreamURL: String
    @Option(help: "The scopes of the downstream token.") var downstreamScope = "https://graph.microsoft.com/User.Read"
    @Option(help: "PostgreSQL's host.") var postgresHost = "127.0.0.1"
    @Option(help: "PostgreSQL's port.") var postgresPort = 5432
    @Option(help: "PostgreSQL's user.") var postgresUser = "postgres"
    @Option(help: "PostgreSQL's database.") var postgresDatabase = "postgres"
    @Option(help: "A file holding the token cache's encryption key (base64 of 32 bytes).") var encryptionKeyFile: String
    @Option(
        help:
            "How many validated tokens are remembered, so a caller's next request with the same token skips the signature check (0: none).")
    var validatedTokenCacheSize = 1024
    @Option(help: "How many seconds a token cache partition read from PostgreSQL is answered from memory (0: always read PostgreSQL).")
    var cacheCopySeconds = 30
    @Flag(help: "Accept an http authority on 127.0.0.1 (a local provider such as `msal emulator`).")
    var allowInsecureLoopback = false
    @Flag(
        help:
            "Run Swift concurrency's jobs on the server's event loops instead of its own thread pool, so that a request is not handed from an event-loop thread to a pool thread and back (SwiftNIO's NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor; process-wide)."
    )
    var eventLoopExecutor = false

    /// Parses the arguments and runs the service. `--event-loop-executor` is acted on before
    /// anything else, on the main thread, as SwiftNIO requires: before any job reaches Swift
    /// concurrency's global executor.
    static func main() async {
        if CommandLine.arguments.dropFirst().contains("--event-loop-executor") {
            guard NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() else {
                exit(withError: ValidationError("--event-loop-executor: SwiftNIO could not install its event loops as the global executor"))
            }
        }
        await main(nil)
    }

    func run() async throws {
        let options: MSALAuthorityOptions = allowInsecureLoopback ? .allowInsecureLoopback : []
        guard let authorityURL = URL(string: authority) else { throw ValidationError("--authority is not a URL") }
        let authority = try MSALAuthority.authority(url: authorityURL, options: options)
        let secret = try Self.readSecret(clientSecretFile)
        let key = try MSALTokenCacheEncryptionKey(base64: try Self.readSecret(encryptionKeyFile))

        let postgres = PostgresClient(
            configuration: .init(
                host: postgresHost, port: postgresPort, username: postgresUser, password: nil, database: postgresDatabase,
                tls: .disable))
        let store = try MSALPostgresTokenCache(client: postgres, configuration: .init(encryptionKeys: [key]))
        // Partitions read in the last `cacheCopySeconds` are answered from memory; writes always go
        // to PostgreSQL over the version read, so replicas still never lose each other's tokens.
        let readThrough = try MSALReadThroughTokenCacheStore(store, maximumAge: .seconds(max(0, cacheCopySeconds)))

        let httpClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        let configuration = MSALConfidentialClientApplicationConfig(
            clientId: clientId, clientCredential: .secret(secret), authority: authority)
        configuration.cacheConfig = MSALCacheConfig(storage: .partitioned(readThrough))
        configuration.transport = try MSALAsyncHTTPClientTransport(client: httpClient)
        let api = OrdersAPI(
            validator: try MSALAccessTokenValidator(
                authority: authority, audiences: [clientId, "api://\(clientId)"], validatedTokenCacheSize: validatedTokenCacheSize),
            application: try MSALConfidentialClientApplication(configuration: configuration),
            requiredScope: requiredScope, downstreamURL: downstreamURL, downstreamScopes: [downstreamScope], httpClient: httpClient,
            publicURL: publicURL ?? "http://127.0.0.1:\(port)")

        var app = Application(
            router: api.router(), configuration: .init(address: .hostname("127.0.0.1", port: port)), services: [postgres])
        app.beforeServerStarts { try await store.createTableIfNeeded() }
        do {
            try await app.runService()
        } catch {
            try? await httpClient.shutdown()
            throw error
        }
        try await httpClient.shutdown()
    }

    /// A secret file's contents, trimmed.
    static func readSecret(_ path: String) throws -> String {
        let text = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw ValidationError("\(path) is empty") }
        return text
    }
}
