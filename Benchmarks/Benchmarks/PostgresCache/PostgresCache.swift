// A confidential client's app tokens with the token cache in PostgreSQL (MSALPostgresTokenCache),
// each figure against a bare SELECT of one row from the same table on the same connection pool:
//
//   (a) bare SELECT of one row                       the floor: PostgresClient.query of the
//                                                    partition's row (version, sealed value)
//   (b) acquireTokenForClient hit, read-through copy  MSALReadThroughTokenCacheStore in front of
//                                                    PostgreSQL: the partition from memory, parsed,
//                                                    the token found
//   (c) acquireTokenForClient, PostgreSQL read        the same application with the store alone:
//                                                    every call loads the partition (the SELECT),
//                                                    decrypts it (AES-256-GCM), parses it, finds
//                                                    the token: what a miss of the copy costs
//   (d) MSALPostgresTokenCache.load(partition:)       the SELECT and the decryption alone
//
// The cluster comes from scripts/postgres_bench.sh (MSAL_BENCH_POSTGRES_PORT, user msal, trusted).
// Each benchmark's setup makes a table of its own and fills one app token through the in-memory
// provider, which then fails the run if anything reaches it: every timed call is a cache hit.

import AppTokenBenchmarkSupport
import Benchmark
import Foundation
import MSAL
import MSALPostgresTokenCache
import PostgresNIO

/// The PostgreSQL client of the run, running for the life of the process.
let postgres: PostgresClient = {
    guard let port = ProcessInfo.processInfo.environment["MSAL_BENCH_POSTGRES_PORT"].flatMap(Int.init) else {
        fatalError("MSAL_BENCH_POSTGRES_PORT is not set: run the benchmark through scripts/postgres_bench.sh")
    }
    let client = PostgresClient(
        configuration: .init(host: "127.0.0.1", port: port, username: "msal", password: nil, database: "postgres", tls: .disable))
    Task.detached { await client.run() }
    return client
}()

let tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"
let clientID = "5b7c2d9e-8a4f-4c1b-9e3d-6f0a1b2c3d4e"
let scope = "https://graph.microsoft.com/.default"

/// What one benchmark times with.
struct Prepared: @unchecked Sendable {
    // @unchecked Sendable: every member is Sendable but the parameters object, which is only read.
    var application: MSALConfidentialClientApplication
    var parameters: MSALClientCredentialParameters
    var store: MSALPostgresTokenCache
    var table: String
    var partitionKey: String
}

/// A table of its own with one app token in it, and an application over `wrap(store)`.
func prepare(_ name: String, wrap: (MSALPostgresTokenCache) throws -> any MSALPartitionedTokenCacheStore) async throws -> Prepared {
    let table = "msal_bench_\(name)_\(getpid())"
    let key = try MSALTokenCacheEncryptionKey(bytes: (0..<32).map { UInt8($0 * 7 & 0xFF) })
    let store = try MSALPostgresTokenCache(client: postgres, configuration: .init(encryptionKeys: [key], tableName: table))
    try await store.createTableIfNeeded()
    let config = MSALConfidentialClientApplicationConfig(
        clientId: clientID, clientCredential: .secret("benchmark-secret"),
        authority: try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/\(tenant)")!))
    config.cacheConfig = MSALCacheConfig(storage: .partitioned(try wrap(store)))
    let transport = FillingTransport()
    config.transport = transport
    let application = try MSALConfidentialClientApplication(configuration: config)
    let parameters = MSALClientCredentialParameters(scopes: [scope])
    let first = try await application.acquireTokenForClient(with: parameters)
    precondition(first.tokenSource == .identityProvider, "the fill did not reach the provider")
    transport.close()
    let hit = try await application.acquireTokenForClient(with: parameters)
    precondition(hit.tokenSource == .cache && hit.accessToken == "app-token-\(tenant)", "not a cache hit")
    var partitionKey: String?
    for try await row in try await postgres.query("SELECT partition_key FROM \(unescaped: table)") {
        partitionKey = try row.decode(String.self)
    }
    guard let partitionKey else { fatalError("the app token was not stored in \(table)") }
    return Prepared(application: application, parameters: parameters, store: store, table: table, partitionKey: partitionKey)
}

func postgresCacheBenchmarks() {
    Benchmark("PostgreSQL cache (a) bare SELECT of one row") { benchmark, prepared in
        let table = prepared.table
        let key = prepared.partitionKey
        for _ in benchmark.scaledIterations {
            var found: (Int64, ByteBuffer)?
            for try await row in try await postgres.query(
                "SELECT version, value FROM \(unescaped: table) WHERE partition_key = \(key)")
            {
                found = try row.decode((Int64, ByteBuffer).self)
            }
            precondition(found != nil)
            blackHole(found)
        }
    } setup: {
        try await prepare("select") { $0 }
    }

    Benchmark("PostgreSQL cache (b) acquireTokenForClient hit, read-through copy in front of PostgreSQL") { benchmark, prepared in
        for _ in benchmark.scaledIterations {
            blackHole(try await prepared.application.acquireTokenForClient(with: prepared.parameters))
        }
    } setup: {
        try await prepare("copy") { try MSALReadThroughTokenCacheStore($0, maximumAge: .seconds(3600)) }
    }

    Benchmark("PostgreSQL cache (c) acquireTokenForClient, the partition read from PostgreSQL") { benchmark, prepared in
        for _ in benchmark.scaledIterations {
            blackHole(try await prepared.application.acquireTokenForClient(with: prepared.parameters))
        }
    } setup: {
        try await prepare("read") { $0 }
    }

    Benchmark("PostgreSQL cache (d) MSALPostgresTokenCache.load(partition:)") { benchmark, prepared in
        for _ in benchmark.scaledIterations {
            blackHole(try await prepared.store.load(partition: prepared.partitionKey))
        }
    } setup: {
        try await prepare("load") { $0 }
    }
}

let benchmarks: @Sendable () -> Void = {
    // One call after another in one task: the latency of each path, not the pool's throughput.
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .microseconds,
        warmupIterations: 2,
        scalingFactor: .kilo,
        maxDuration: .seconds(3)
    )
    postgresCacheBenchmarks()
}
