import Foundation
import MSAL
import MSALPostgresTokenCache
import MSALSupport
import PostgresNIO

/// A replica of a service for the PostgreSQL token cache tests: a process of its own with its own
/// connection pool, writing token responses through the token cache into one partition.
///
///     MSALPostgresWorker write PORT TABLE KEY PARTITION TAG WRITERS COUNT
///
/// `WRITERS` concurrent tasks each save `COUNT` token responses, every one with a scope of its own
/// (`api://TAG-w<writer>/n<index>`), into the partition `PARTITION` of the table `TABLE` on the
/// server at 127.0.0.1:`PORT` (user `msal`, database `postgres`, no TLS), encrypted with the
/// base64 key `KEY`. It prints `wrote <scope>` after each write the store accepted and `done` at
/// the end; a failure is printed to standard error with exit status 1.
@main
struct PostgresWorker {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count == 8, arguments[0] == "write", let port = Int(arguments[1]), let writers = Int(arguments[6]),
            let count = Int(arguments[7])
        else {
            FileHandle.standardError.write(Data("usage: MSALPostgresWorker write PORT TABLE KEY PARTITION TAG WRITERS COUNT\n".utf8))
            exit(64)
        }
        let (table, key, partition, tag) = (arguments[2], arguments[3], arguments[4], arguments[5])
        let client = PostgresClient(
            configuration: .init(host: "127.0.0.1", port: port, username: "msal", password: nil, database: "postgres", tls: .disable))
        let running = Task { await client.run() }
        do {
            let store = try MSALPostgresTokenCache(
                client: client,
                configuration: .init(encryptionKeys: [try MSALTokenCacheEncryptionKey(base64: key)], tableName: table))
            // Every writer of every replica writes the same partition at once, the worst case
            // (a real partition is one user's or one tenant's): the test counts lost updates, so
            // no write may give up on the attempt budget.
            var config = MSALCacheConfig(storage: .partitioned(store))
            config.partitionWriteAttempts = 10_000
            let cache = try TokenCache(config: config, suggestsPartitionKeys: true)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        for index in 0..<count {
                            let scope = "api://\(tag)-w\(writer)/n\(index)"
                            let entries = try Self.entries(partition: partition, scope: scope)
                            try await cache.write(clientID: Self.client, partition: .account(partition)) { contents in
                                contents.save(entries, clientID: Self.client)
                            }
                            Self.say("wrote \(scope)")
                        }
                    }
                }
                try await group.waitForAll()
            }
            Self.say("done")
            running.cancel()
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("MSALPostgresWorker: \(error)\n".utf8))
            running.cancel()
            exit(1)
        }
    }

    static let client = "postgres-worker-client"
    private static let output = Mutex(())

    /// One line on standard output, written whole.
    static func say(_ line: String) {
        output.withLock { _ in FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    }

    /// A token response for the account `partition` (`uid.utid`) with the access token's scope `scope`.
    static func entries(partition: String, scope: String) throws -> TokenCacheEntries {
        let parts = partition.split(separator: ".", maxSplits: 1).map(String.init)
        let (uid, utid) = (parts.first ?? partition, parts.count > 1 ? parts[1] : "tenant")
        let clientInfo = Data(#"{"uid":"\#(uid)","utid":"\#(utid)"}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let response = TokenResponse(
            accessToken: "at-\(scope)", expiresIn: 3600, refreshToken: "rt-\(uid)", idToken: nil, clientInfo: clientInfo, scope: scope)
        let context = TokenCacheWriteContext(
            clientID: client, environment: "login.windows.net", authorityTenant: utid, requestedScopes: [scope],
            now: Int64(Date().timeIntervalSince1970))
        return try TokenCacheEntries(response: response, context: context)
    }
}
