// acquireTokenForClient cache hits through the public async API — parameters, per-request
// authority (one tenant per probe), the cache lookup and the result — for 1 and 1,000 tenants'
// app tokens, on the documents MSAL for Python writes with scripts/app_token_bench.py (which also
// times MSAL for Python's acquire_token_for_client on them), and on an in-memory cache (the
// confidential client's default) filled through the token endpoint before timing. Every request
// that reaches the transport while timing fails the run: a hit needs no network at all.
//
// The documents are read from $MSAL_APP_TOKEN_DOCUMENTS, else .build/app-token-documents.

import AppTokenBenchmarkSupport
import Benchmark
import Foundation
import MSAL

struct Document {
    var tenants: Int
    var path: String
    var probes: [String]
}

func loadDocuments() -> (clientID: String, scope: String, documents: [Document]) {
    let folder =
        ProcessInfo.processInfo.environment["MSAL_APP_TOKEN_DOCUMENTS"]
        ?? FileManager.default.currentDirectoryPath + "/.build/app-token-documents"
    guard let data = FileManager.default.contents(atPath: folder + "/app-manifest.json"),
        let manifest = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
        let entries = manifest["documents"] as? [[String: Any]]
    else {
        fatalError("No app-token documents in \(folder): run .build/interop-venv/bin/python scripts/app_token_bench.py make \(folder)")
    }
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("msal-app-token-bench-\(getpid())").path
    try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    var documents: [Document] = []
    for entry in entries {
        guard let file = entry["file"] as? String, let tenants = entry["tenants"] as? Int else { continue }
        let copy = scratch + "/" + file
        try? FileManager.default.removeItem(atPath: copy)
        do {
            try FileManager.default.copyItem(atPath: folder + "/" + file, toPath: copy)
        } catch {
            fatalError("cannot copy \(file) from \(folder) to \(scratch): \(error)")
        }
        chmod(copy, 0o600)
        documents.append(Document(tenants: tenants, path: copy, probes: entry["probes"] as? [String] ?? []))
    }
    return (manifest["client_id"] as? String ?? "", manifest["scope"] as? String ?? "", documents.sorted { $0.tenants < $1.tenants })
}

func authority(_ tenant: String) -> MSALAuthority {
    do {
        return try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/\(tenant)")!)
    } catch {
        fatalError("authority for \(tenant): \(error)")
    }
}

/// Parameters for each probe tenant, checked to be cache hits (untimed).
func probeParameters(
    _ application: MSALConfidentialClientApplication, scope: String, probes: [String]
) async -> [MSALClientCredentialParameters] {
    var parameters: [MSALClientCredentialParameters] = []
    for probe in probes {
        let parameter = MSALClientCredentialParameters(scopes: [scope])
        parameter.authority = authority(probe)
        do {
            let result = try await application.acquireTokenForClient(with: parameter)
            precondition(result.tokenSource == .cache && result.accessToken == "app-token-\(probe)", "probe \(probe) is not a hit")
        } catch {
            fatalError("probe \(probe): \(error)")
        }
        parameters.append(parameter)
    }
    return parameters
}

/// An application and the parameters of its probe tenants, made before timing.
struct Prepared: @unchecked Sendable {
    // @unchecked Sendable: the application and parameters are Sendable; the array is only read.
    var application: MSALConfidentialClientApplication
    var parameters: [MSALClientCredentialParameters]
}

/// The document MSAL for Python wrote, as the cache file.
func fileCacheApplication(clientID: String, scope: String, document: Document) async throws -> Prepared {
    let config = MSALConfidentialClientApplicationConfig(
        clientId: clientID, clientCredential: .secret("benchmark-secret"), authority: authority(document.probes[0]))
    config.cacheConfig = MSALCacheConfig(storage: .file(path: document.path))
    let transport = FillingTransport()
    transport.close()
    config.transport = transport
    let application = try MSALConfidentialClientApplication(configuration: config)
    return Prepared(application: application, parameters: await probeParameters(application, scope: scope, probes: document.probes))
}

/// The default in-memory cache, filled with the same tenants through the token endpoint.
func memoryCacheApplication(clientID: String, scope: String, document: Document) async throws -> Prepared {
    let config = MSALConfidentialClientApplicationConfig(
        clientId: clientID, clientCredential: .secret("benchmark-secret"), authority: authority(document.probes[0]))
    let transport = FillingTransport()
    config.transport = transport
    let application = try MSALConfidentialClientApplication(configuration: config)
    for index in 0..<document.tenants {
        let parameter = MSALClientCredentialParameters(scopes: [scope])
        parameter.authority = authority(String(format: "%08x-0000-4000-8000-%012x", 0x7E0000 + index, index))
        _ = try await application.acquireTokenForClient(with: parameter)
    }
    transport.close()
    return Prepared(application: application, parameters: await probeParameters(application, scope: scope, probes: document.probes))
}

func appTokenBenchmarks() {
    let (clientID, scope, documents) = loadDocuments()
    for document in documents {
        for (kind, prepare) in [("file cache", fileCacheApplication), ("memory cache", memoryCacheApplication)] {
            Benchmark("acquireTokenForClient cache hit (\(kind)), \(document.tenants) tenants") { benchmark, prepared in
                var index = 0
                for _ in benchmark.scaledIterations {
                    let result = try await prepared.application.acquireTokenForClient(with: prepared.parameters[index])
                    blackHole(result)
                    index = index + 1 == prepared.parameters.count ? 0 : index + 1
                }
            } setup: {
                try await prepare(clientID, scope, document)
            }
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    // 1,000 calls per sample in one task, as scripts/app_token_bench.py times MSAL for Python: call
    // after call in one thread (SilentAcquisition explains why).
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 3,
        scalingFactor: .kilo,
        maxDuration: .seconds(2)
    )
    appTokenBenchmarks()
    callFloorBenchmark()
}
