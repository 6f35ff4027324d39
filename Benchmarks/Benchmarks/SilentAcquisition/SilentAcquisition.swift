// acquireTokenSilent cache hits end to end through the public async API — parameters, authority
// (the documents' `organizations`, turned into the account's home tenant), the file-backed cache's shared
// lock and change check, the index lookup and the result — on the documents of
// scripts/make_cache_documents.py, which scripts/python_cache_bench.py measures MSAL for Python's
// acquire_token_silent on. Every request that reaches the transport fails the run: a hit needs
// no network at all.
//
// The documents are read from $MSAL_CACHE_DOCUMENTS, else .build/cache-documents.

import Benchmark
import Foundation
import MSAL

/// A transport that must never be called.
struct NoNetwork: MSALHTTPTransport {
    func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse {
        fatalError("a cache hit sent \(request.method) \(request.url)")
    }
}

struct Document {
    var accounts: Int
    var path: String
    var probes: [String]
}

func loadDocuments() -> (clientID: String, authority: String, scopes: [String], documents: [Document]) {
    let folder =
        ProcessInfo.processInfo.environment["MSAL_CACHE_DOCUMENTS"]
        ?? FileManager.default.currentDirectoryPath + "/.build/cache-documents"
    guard let data = FileManager.default.contents(atPath: folder + "/manifest.json"),
        let manifest = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
        let entries = manifest["documents"] as? [[String: Any]]
    else { fatalError("No cache documents in \(folder): run python3 scripts/make_cache_documents.py \(folder)") }
    // The cache file is opened read-write, so each document is copied to a scratch folder.
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("msal-silent-bench-\(getpid())").path
    try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    var documents: [Document] = []
    for entry in entries {
        guard let file = entry["file"] as? String, let accounts = entry["accounts"] as? Int, accounts == 1 || accounts == 10_000 else {
            continue
        }
        let copy = scratch + "/" + file
        try? FileManager.default.removeItem(atPath: copy)
        do {
            try FileManager.default.copyItem(atPath: folder + "/" + file, toPath: copy)
        } catch {
            fatalError("cannot copy \(file) from \(folder) to \(scratch): \(error)")
        }
        chmod(copy, 0o600)
        let probes = (entry["probes"] as? [[String: Any]] ?? []).compactMap { $0["home_account_id"] as? String }
        documents.append(Document(accounts: accounts, path: copy, probes: probes))
    }
    return (
        manifest["client_id"] as? String ?? "", manifest["authority"] as? String ?? "", manifest["scopes"] as? [String] ?? [],
        documents.sorted { $0.accounts < $1.accounts }
    )
}

func silentAcquisitionBenchmarks() {
    let (clientID, authorityURL, scopes, documents) = loadDocuments()
    // The authority MSAL for Python wrote the documents with (`organizations`).
    let authority: MSALAuthority
    do {
        authority = try MSALAuthority(url: URL(string: authorityURL)!)
    } catch {
        fatalError("the documents' authority \(authorityURL) is refused: \(error)")
    }
    for document in documents {
        let config = MSALPublicClientApplicationConfig(clientId: clientID, redirectUri: nil, authority: authority)
        config.cacheConfig = MSALCacheConfig(storage: .file(path: document.path))
        config.transport = NoNetwork()
        let application: MSALPublicClientApplication
        let parameters: [MSALSilentTokenParameters]
        do {
            application = try MSALPublicClientApplication(configuration: config)
            parameters = try document.probes.map { identifier in
                let account = try application.account(forIdentifier: identifier)
                return MSALSilentTokenParameters(scopes: scopes, account: account)
            }
        } catch {
            fatalError("cannot open the \(document.accounts)-account document \(document.path): \(error)")
        }
        Benchmark("acquireTokenSilent cache hit, \(document.accounts) accounts") { benchmark in
            var index = 0
            for _ in benchmark.scaledIterations {
                let result = try await application.acquireTokenSilent(with: parameters[index])
                precondition(result.tokenSource == .cache)
                blackHole(result)
                index = index + 1 == parameters.count ? 0 : index + 1
            }
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    // 1,000 calls per sample, in one task (scalingFactor .kilo), so the figures are per call and
    // time the library warm, as scripts/python_cache_bench.py times MSAL for Python: call after
    // call in one thread. With one call per sample, each sample would also time the harness
    // starting a new task from a dispatch queue and waking a thread for it.
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 3,
        scalingFactor: .kilo,
        maxDuration: .seconds(2)
    )
    silentAcquisitionBenchmarks()
}
