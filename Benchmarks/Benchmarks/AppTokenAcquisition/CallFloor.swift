// The floor under any cache hit through an API of acquireTokenForClient's shape, timed in the same
// process as the hit: a nonisolated(nonsending) async method that reads a request object's authority,
// scopes and correlation id under its lock and returns a new result object holding a token, the
// authority and a correlation id. No lookup, no clock, no cache check: what is left when every part
// of a hit that can be made free is. The hit's p50 over this one's says how much of the hit is the
// shape of the call itself.

import Benchmark
import Foundation
import Synchronization

/// A request object: what the parameters hold, behind a lock as theirs are.
final class FloorRequest: Sendable {
    struct Values {
        var authority: FloorAuthority
        var scopes: [String]
        var correlationID: UUID?
    }

    let values: Mutex<Values>

    init(authority: FloorAuthority, scopes: [String]) {
        values = Mutex(Values(authority: authority, scopes: scopes, correlationID: nil))
    }
}

/// An authority object.
final class FloorAuthority: Sendable {
    let url: String

    init(url: String) { self.url = url }
}

/// The token a hit hands out.
final class FloorToken: Sendable {
    let secret: String

    init(secret: String) { self.secret = secret }
}

/// A result object: the token, the request's authority and a correlation id.
final class FloorResult: Sendable {
    let token: FloorToken
    let authority: FloorAuthority
    let correlationID: UUID

    init(token: FloorToken, authority: FloorAuthority, correlationID: UUID) {
        self.token = token
        self.authority = authority
        self.correlationID = correlationID
    }
}

/// The callee.
final class FloorService: Sendable {
    let token = FloorToken(secret: "app-token-floor")
    let correlationID = UUID()

    @inline(never)
    nonisolated(nonsending) func answer(_ request: FloorRequest) async throws -> FloorResult {
        let (authority, scopes, correlationID) = request.values.withLock { ($0.authority, $0.scopes, $0.correlationID) }
        guard !scopes.isEmpty else { throw CancellationError() }
        return FloorResult(token: token, authority: authority, correlationID: correlationID ?? self.correlationID)
    }
}

func callFloorBenchmark() {
    Benchmark("Call floor (async method, one result object), 16 requests") { benchmark, prepared in
        var index = 0
        for _ in benchmark.scaledIterations {
            let result = try await prepared.service.answer(prepared.requests[index])
            blackHole(result)
            index = index + 1 == prepared.requests.count ? 0 : index + 1
        }
    } setup: {
        FloorPrepared(
            service: FloorService(),
            requests: (0..<16).map {
                FloorRequest(
                    authority: FloorAuthority(url: "https://login.microsoftonline.com/tenant-\($0)"),
                    scopes: ["https://graph.microsoft.com/.default"])
            })
    }
}

/// The callee and the requests, made before timing.
struct FloorPrepared: Sendable {
    var service: FloorService
    var requests: [FloorRequest]
}
