// A plain loop over one token-cache operation, for profilers that need a simple process
// (valgrind --tool=callgrind, perf). Not a benchmark: only the `-timed` forms print a rough timing,
// for A/B runs; the figures are the benchmarks'.
//
//   .build/release/CacheProfile <deserialize|serialize|accounts-after-change|accounts-rebuilt|lookup|silent> DOCUMENT [count]
//   .build/release/CacheProfile <deserialize-timed|serialize-timed|accounts-rebuilt-timed|accounts-rebuilt-reused-timed> DOCUMENT [count]
//   .build/release/CacheProfile memory DOCUMENT
//   .build/release/CacheProfile app-token [count]
//
// DOCUMENT is one of the files of scripts/make_cache_documents.py (cache-10000.json).
//
// The `-timed` forms print the median and the fastest call in milliseconds (deserialize keeps up to
// eight loaded documents alive, as the benchmark keeps its results), for A/B runs of two builds.
//
// `memory` is what `python_cache_bench.py` measures for MSAL for Python, in a fresh process: the
// peak resident memory after an app has loaded the document from its cache file, listed the
// accounts and made 16 silent requests (cache hits), through the public API only. It prints JSON.
//
// `app-token` loops over acquireTokenForClient cache hits through the public async API (the
// confidential client's default memory cache, 16 tenants filled through an in-memory provider).

import Foundation
@_spi(Benchmarks) import MSAL

let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "memory" {
    try await measureMemory(document: arguments[2])
    exit(0)
}
if arguments.count >= 2, arguments[1] == "app-token" {
    let count = arguments.count >= 3 ? Int(arguments[2]) ?? 1 : 1
    print("checksum \(try await profileAppTokenHits(count: count))")
    exit(0)
}
guard arguments.count >= 3, let data = FileManager.default.contents(atPath: arguments[2]) else {
    print("usage: CacheProfile <deserialize|serialize|accounts-after-change|accounts-rebuilt|lookup|silent> DOCUMENT [count]")
    print("       CacheProfile memory DOCUMENT")
    exit(2)
}
let bytes = [UInt8](data)
let count = arguments.count >= 4 ? Int(arguments[3]) ?? 1 : 1
let clientID = "5a9c3e7b-2d4f-4a6c-8e0b-1c3d5e7f9a2b"
let environment = "login.microsoftonline.com"

/// Times `count` calls of `body`, keeping up to `keeping` results alive (as the benchmarks keep
/// theirs, so each call writes fresh memory), and prints the median and the fastest in milliseconds.
func printTimes<Result>(count: Int, keeping: Int, _ body: () throws -> Result) rethrows {
    var kept: [Result] = []
    var times: [Double] = []
    for _ in 0..<max(count, 1) {
        let start = DispatchTime.now().uptimeNanoseconds
        let result = try body()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        kept.append(result)
        if kept.count >= keeping { kept.removeAll() }
    }
    times.sort()
    print("median ms", times[times.count / 2], "min", times[0])
}

var checksum = 0
switch arguments[1] {
case "deserialize":
    for _ in 0..<count {
        let loaded = try MSALCacheBenchmarkSupport.load(bytes)
        checksum &+= MSALCacheBenchmarkSupport.entryCount(loaded)
    }
case "deserialize-timed":
    try printTimes(count: count, keeping: 8) { try MSALCacheBenchmarkSupport.load(bytes) }
case "serialize-timed":
    let loaded = try MSALCacheBenchmarkSupport.load(bytes)
    printTimes(count: count, keeping: 1) { MSALCacheBenchmarkSupport.serialize(loaded) }
case "serialize":
    let loaded = try MSALCacheBenchmarkSupport.load(bytes)
    for _ in 0..<count {
        checksum &+= MSALCacheBenchmarkSupport.serialize(loaded).count
    }
case "accounts-after-change":
    let loaded = try MSALCacheBenchmarkSupport.load(bytes)
    checksum &+= MSALCacheBenchmarkSupport.accounts(loaded, clientID: clientID, environment: environment, memoized: true).count
    for round in 0..<count {
        MSALCacheBenchmarkSupport.touchOneAccount(loaded, clientID: clientID, round: round)
        checksum &+= MSALCacheBenchmarkSupport.accounts(loaded, clientID: clientID, environment: environment, memoized: true).count
    }
case "accounts-rebuilt":
    let loaded = try MSALCacheBenchmarkSupport.load(bytes)
    for _ in 0..<count {
        checksum &+= MSALCacheBenchmarkSupport.accounts(loaded, clientID: clientID, environment: environment, memoized: false).count
    }
case "accounts-rebuilt-timed", "accounts-rebuilt-reused-timed":
    let loaded = try MSALCacheBenchmarkSupport.load(bytes)
    // `-reused`: each list is freed before the next call, so its memory is used again.
    printTimes(count: count, keeping: arguments[1] == "accounts-rebuilt-timed" ? 1000 : 1) {
        MSALCacheBenchmarkSupport.accounts(loaded, clientID: clientID, environment: environment, memoized: false)
    }
case "lookup":
    let loaded = try MSALCacheBenchmarkSupport.load(bytes)
    let scopes = MSALCacheBenchmarkSupport.lookupScopes(["User.Read"])
    let homes = MSALCacheBenchmarkSupport.homeAccountIDs(loaded, count: 16)
    let realms = homes.map { [String($0[$0.index(after: $0.lastIndex(of: ".")!)...]), "organizations"] }
    for round in 0..<count {
        let index = round % homes.count
        checksum &+=
            MSALCacheBenchmarkSupport.silentLookup(
                loaded, homeAccountID: homes[index], environment: environment, clientID: clientID, realms: realms[index],
                scopes: scopes, now: 1_767_225_600)?.utf8.count ?? 0
    }
case "silent":
    // acquireTokenSilent cache hits through the public async API on a copy of the document.
    let copy = FileManager.default.temporaryDirectory.appendingPathComponent("msal-silent-profile-\(getpid()).json").path
    FileManager.default.createFile(atPath: copy, contents: data, attributes: [.posixPermissions: 0o600])
    defer { try? FileManager.default.removeItem(atPath: copy) }
    let loaded = try MSALCacheBenchmarkSupport.load(bytes)
    let homes = MSALCacheBenchmarkSupport.homeAccountIDs(loaded, count: 16)
    let config = MSALPublicClientApplicationConfig(
        clientId: clientID, redirectUri: nil,
        authority: try MSALAuthority(url: URL(string: "https://login.microsoftonline.com/organizations")!))
    config.cacheConfig = MSALCacheConfig(storage: .file(path: copy))
    let application = try MSALPublicClientApplication(configuration: config)
    let parameters = try homes.map { home in
        MSALSilentTokenParameters(scopes: ["User.Read"], account: try application.account(forIdentifier: home))
    }
    // The loop runs in a nonisolated function, as an app's background task would (top-level code is
    // on the main actor, and every call from it would hop to the global executor and back).
    @Sendable nonisolated func loop() async throws -> Int {
        var sum = 0
        for round in 0..<count {
            let result = try await application.acquireTokenSilent(with: parameters[round % parameters.count])
            sum &+= result.accessToken.utf8.count
        }
        return sum
    }
    checksum &+= try await Task.detached { try await loop() }.value
default:
    print("unknown case \(arguments[1])")
    exit(2)
}
print("checksum \(checksum)")
