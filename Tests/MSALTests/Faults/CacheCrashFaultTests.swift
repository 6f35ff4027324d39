import Foundation
import Glibc
import Testing

@testable import MSAL

/// A process killed (`SIGKILL`) in the middle of a token cache write — before the temporary file
/// exists, with it half written, complete but not synced, synced but not renamed, renamed but the
/// directory not synced — and the next process using the cache through the public API.
@Suite("Fault injection: a writer killed mid-write")
struct CacheCrashFaultTests {
    @Test(
        "A writer killed at each step: the next process reads the previous cache whole (the new one once renamed); the leftover is never read, kept while fresh, removed once stale",
        arguments: TokenCacheFileOptions.WriteStep.allCases)
    func killedWriter(_ step: TokenCacheFileOptions.WriteStep) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.file()
        let seeded = try await StressWorker.run(["cache-save", path, "2", "alice"])
        try #require(seeded.status == 0, "\(seeded.standardError)")
        let before = try #require(FileManager.default.contents(atPath: path))

        let outcome = try await StressWorker.run(["cache-kill-at", path, "bob", step.rawValue])
        #expect(outcome.killedBySignal && outcome.status == SIGKILL, "\(outcome)")

        let renamed = step == .syncDirectory
        let after = try #require(FileManager.default.contents(atPath: path))
        if renamed {
            let document = try TokenCacheDocument(parsing: [UInt8](after))
            #expect(document[.account].count == 3, "the new document is in place, complete")
        } else {
            #expect(after == before, "the previous document is in place, byte for byte")
        }
        let leftovers = scratch.names().filter { $0.hasPrefix("token_cache.json.tmp-") }
        switch step {
        case .createTemporaryFile, .syncDirectory:
            #expect(leftovers.isEmpty, "\(scratch.names())")
        case .write:
            // Half a document: torn JSON that must never be read.
            try #require(leftovers.count == 1, "\(scratch.names())")
            let partial = try #require(FileManager.default.contents(atPath: scratch.file(leftovers[0])))
            #expect(partial.count > 0 && partial.count < before.count)
            #expect(throws: MSALFailure.self) { try TokenCacheDocument(parsing: [UInt8](partial)) }
        case .sync, .rename:
            try #require(leftovers.count == 1, "\(scratch.names())")
            let complete = try #require(FileManager.default.contents(atPath: scratch.file(leftovers[0])))
            #expect(try TokenCacheDocument(parsing: [UInt8](complete))[.account].count == 3)
        }

        // The next process: an application on the same file, without any network.
        let transport = QueueTransport([])
        let app = try StorageFaultHarness.application(
            path: path, clientID: "stress-client", transport: transport, clock: ManualClock(Date().timeIntervalSince1970))
        let expected = renamed ? ["alice-0.tenant", "alice-1.tenant", "bob.tenant"] : ["alice-0.tenant", "alice-1.tenant"]
        #expect(try app.allAccounts().compactMap(\.identifier).sorted() == expected)
        let alice = try app.account(forIdentifier: "alice-0.tenant")
        let result = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: alice))
        #expect(result.accessToken == "at-alice-0")
        #expect(result.tokenSource == .cache)
        #expect(transport.callCount == 0)

        // Its first write keeps a fresh leftover (its owner might still be alive)…
        try app.remove(alice)
        #expect(scratch.names().filter { $0.hasPrefix("token_cache.json.tmp-") } == leftovers)
        // …and once the leftover is older than the stale age, the next write removes it.
        for leftover in leftovers {
            try RawFile.setTimes(scratch.file(leftover), seconds: Int(Date().timeIntervalSince1970) - 3_600)
        }
        try app.remove(try app.account(forIdentifier: "alice-1.tenant"))
        #expect(scratch.names() == ["token_cache.json", "token_cache.json.lock"])
        #expect(try app.allAccounts().compactMap(\.identifier) == (renamed ? ["bob.tenant"] : []))
    }
}
