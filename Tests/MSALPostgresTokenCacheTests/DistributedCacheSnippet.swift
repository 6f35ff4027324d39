// The Swift block of docs/distributed-cache.md, compiled here as written (the values it names are
// the parameters of this function); DistributedCacheSnippetTests checks the document still shows
// exactly this code.

import Foundation
import MSAL
import MSALPostgresTokenCache
import PostgresNIO

func distributedCacheSnippet(
    databasePassword: String, keyFromSecretStore: String, clientID: String, clientSecret: String, authority: MSALAuthority
) async throws -> MSALConfidentialClientApplication {
    // docs/distributed-cache.md begins
    let postgres = PostgresClient(
        configuration: .init(
            host: "db.internal", username: "orders", password: databasePassword, database: "orders",
            tls: .require(.makeClientConfiguration())))
    // The service runs the client for its whole life (with ServiceLifecycle, or a task of its own).
    let store = try MSALPostgresTokenCache(
        client: postgres,
        configuration: .init(encryptionKeys: [try MSALTokenCacheEncryptionKey(base64: keyFromSecretStore)]))
    try await store.createTableIfNeeded()

    let configuration = MSALConfidentialClientApplicationConfig(
        clientId: clientID, clientCredential: .secret(clientSecret), authority: authority)
    configuration.cacheConfig = MSALCacheConfig(storage: .partitioned(store))
    let application = try MSALConfidentialClientApplication(configuration: configuration)
    // docs/distributed-cache.md ends
    return application
}
