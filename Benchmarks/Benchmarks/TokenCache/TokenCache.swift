// Token cache benchmarks on the documents of scripts/make_cache_documents.py (1, 100 and 10,000
// accounts, the shape MSAL for Python writes). scripts/python_cache_bench.py measures MSAL for
// Python on the same documents and probes; scripts/cache_ratios.py prints the ratios.
//
// The documents are read from $MSAL_CACHE_DOCUMENTS, else .build/cache-documents (relative to
// this package). Generate them first:
//     python3 scripts/make_cache_documents.py .build/cache-documents

import Benchmark
import Foundation
@_spi(Benchmarks) import MSAL
import Synchronization

struct Probe {
    var homeAccountID: String
    var accessToken: String
}

struct CacheDocumentSet {
    var clientID: String
    var environment: String
    var realm: String
    var scopes: [String]
    var documents: [(accounts: Int, bytes: [UInt8], probes: [Probe])]

    static func load() -> CacheDocumentSet {
        let folder =
            ProcessInfo.processInfo.environment["MSAL_CACHE_DOCUMENTS"]
            ?? FileManager.default.currentDirectoryPath + "/.build/cache-documents"
        guard let manifestData = FileManager.default.contents(atPath: folder + "/manifest.json"),
            let manifest = try? JSONSerialization.jsonObject(with: manifestData) as? [String: Any],
            let entries = manifest["documents"] as? [[String: Any]]
        else {
            fatalError("No cache documents in \(folder): run python3 scripts/make_cache_documents.py \(folder)")
        }
        var documents: [(Int, [UInt8], [Probe])] = []
        for entry in entries {
            guard let file = entry["file"] as? String, let accounts = entry["accounts"] as? Int,
                let data = FileManager.default.contents(atPath: folder + "/" + file)
            else { fatalError("bad manifest entry \(entry)") }
            let probes = (entry["probes"] as? [[String: Any]] ?? []).compactMap { probe -> Probe? in
                guard let home = probe["home_account_id"] as? String, let token = probe["access_token"] as? String else { return nil }
                return Probe(homeAccountID: home, accessToken: token)
            }
            documents.append((accounts, [UInt8](data), probes))
        }
        return CacheDocumentSet(
            clientID: manifest["client_id"] as? String ?? "", environment: manifest["environment"] as? String ?? "",
            realm: manifest["realm"] as? String ?? "", scopes: manifest["scopes"] as? [String] ?? [],
            documents: documents.sorted { $0.0 < $1.0 })
    }
}

/// Loads a document of the set outside any measurement; one that does not load stops the run, as a
/// missing one does.
func loadDocument(_ bytes: [UInt8], accounts: Int) -> MSALCacheBenchmarkSupport.Loaded {
    do {
        return try MSALCacheBenchmarkSupport.load(bytes)
    } catch {
        fatalError("the \(accounts)-account cache document does not load: \(error)")
    }
}

func tokenCacheBenchmarks() {
    let set = CacheDocumentSet.load()
    let scopes = MSALCacheBenchmarkSupport.lookupScopes(set.scopes)
    let now = Int64(Date().timeIntervalSince1970)
    for document in set.documents {
        let loaded = loadDocument(document.bytes, accounts: document.accounts)
        let probes = document.probes
        let realms = probes.map { [MSALAccountId(identifier: $0.homeAccountID).tenantId ?? "", set.realm] }
        for (probe, realm) in zip(probes, realms) {
            let found = MSALCacheBenchmarkSupport.silentLookup(
                loaded, homeAccountID: probe.homeAccountID, environment: set.environment, clientID: set.clientID, realms: realm,
                scopes: scopes, now: now)
            precondition(found == probe.accessToken, "probe not found")
        }
        // 1,000 lookups per sample, as SilentAcquisition: with one per sample, every sample also
        // timed the harness's own per-sample work, which on the benchmark VM cost more than the lookup.
        Benchmark(
            "Cache silent lookup, \(document.accounts) accounts",
            configuration: .init(metrics: [.wallClock], timeUnits: .nanoseconds, scalingFactor: .kilo, maxDuration: .seconds(2))
        ) { benchmark in
            var index = 0
            for _ in benchmark.scaledIterations {
                blackHole(
                    MSALCacheBenchmarkSupport.silentLookup(
                        loaded, homeAccountID: probes[index].homeAccountID, environment: set.environment, clientID: set.clientID,
                        realms: realms[index], scopes: scopes, now: now))
                index = index + 1 == probes.count ? 0 : index + 1
            }
        }
        Benchmark("Cache allAccounts (memoized), \(document.accounts) accounts") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(MSALCacheBenchmarkSupport.accounts(loaded, clientID: set.clientID, environment: set.environment, memoized: true))
            }
        }
        // As MSAL for Python's figures are taken: what a call returns is freed outside the timing.
        Benchmark("Cache allAccounts (rebuilt), \(document.accounts) accounts") { benchmark in
            var results: [[MSALAccount]] = []
            results.reserveCapacity(benchmark.scaledIterations.count)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                results.append(
                    MSALCacheBenchmarkSupport.accounts(loaded, clientID: set.clientID, environment: set.environment, memoized: false))
            }
            benchmark.stopMeasurement()
            blackHole(results)
        }
        // The first allAccounts() after one account changed (a token refresh saved for it): only
        // the call is measured, not the save before it.
        let changing = loadDocument(document.bytes, accounts: document.accounts)
        blackHole(MSALCacheBenchmarkSupport.accounts(changing, clientID: set.clientID, environment: set.environment, memoized: true))
        let rounds = Mutex(0)
        Benchmark("Cache allAccounts (first call after a change), \(document.accounts) accounts") { benchmark in
            let round = rounds.withLock { round in
                defer { round += 1 }
                return round
            }
            MSALCacheBenchmarkSupport.touchOneAccount(changing, clientID: set.clientID, round: round)
            benchmark.startMeasurement()
            let accounts = MSALCacheBenchmarkSupport.accounts(
                changing, clientID: set.clientID, environment: set.environment, memoized: true)
            benchmark.stopMeasurement()
            precondition(accounts.count == document.accounts, "an account went missing")
            blackHole(accounts)
        }
        // As MSAL for Python's figures are taken: what a call returns is freed outside the timing.
        Benchmark(
            "Cache deserialize (parse + index), \(document.accounts) accounts", configuration: .init(maxDuration: .seconds(10))
        ) { benchmark in
            var results: [MSALCacheBenchmarkSupport.Loaded] = []
            results.reserveCapacity(benchmark.scaledIterations.count)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                results.append(try MSALCacheBenchmarkSupport.load(document.bytes))
            }
            benchmark.stopMeasurement()
            blackHole(results)
        }
        // What the file store does on a first access or after another process changed the file: read
        // it straight into the buffer the reader compacts, parse, index (a private 0600 copy, as the
        // store refuses files others can read).
        let file = NSTemporaryDirectory() + "msal-cache-benchmark-\(document.accounts).json"
        FileManager.default.createFile(atPath: file, contents: Data(document.bytes), attributes: [.posixPermissions: 0o600])
        Benchmark(
            "Cache load from file (read + parse + index, values compacted), \(document.accounts) accounts",
            configuration: .init(maxDuration: .seconds(10))
        ) { benchmark in
            var results: [MSALCacheBenchmarkSupport.Loaded] = []
            results.reserveCapacity(benchmark.scaledIterations.count)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                results.append(try MSALCacheBenchmarkSupport.loadFile(file))
            }
            benchmark.stopMeasurement()
            blackHole(results)
        }
        Benchmark("Cache serialize, \(document.accounts) accounts", configuration: .init(maxDuration: .seconds(10))) { benchmark in
            var results: [[UInt8]] = []
            results.reserveCapacity(benchmark.scaledIterations.count)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                results.append(MSALCacheBenchmarkSupport.serialize(loaded))
            }
            benchmark.stopMeasurement()
            blackHole(results)
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .peakMemoryResident], maxDuration: .seconds(2))
    tokenCacheBenchmarks()
}
