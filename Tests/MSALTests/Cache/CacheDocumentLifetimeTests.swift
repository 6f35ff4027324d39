import Foundation
import Testing

@testable import MSAL

/// Public models own their strings (issue 20, point 3): an ``MSALAccount``, its tenant profiles and an
/// ``MSALResult`` that an app keeps never keep the cache document's bytes (every account's refresh
/// tokens among them) in memory.
@Suite("Public models do not keep the cache document alive")
struct CacheDocumentLifetimeTests {
    @Test("Dropping the application frees the document read from the file, while its accounts and results live on")
    func droppingTheApplicationFreesTheDocument() async throws {
        let (path, directory) = try RefreshLockTests.cacheFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        let noNetwork = FlowTransport(token: { _ in .json(500, #"{"error":"not expected"}"#) })
        try FlowHarness(noNetwork, cacheConfig: MSALCacheConfig(storage: .file(path: path))).seed(.abe)

        weak var document: CacheSource?
        var kept: (account: MSALAccount, result: MSALResult)?
        do {
            // A new application reads the file: its entries are slices of the document's bytes.
            let harness = try FlowHarness(noNetwork, cacheConfig: MSALCacheConfig(storage: .file(path: path)))
            let accounts = try harness.app.allAccounts()
            let result = try await harness.silent(.abe)
            #expect(result.tokenSource == .cache)
            document = try await harness.app.cache.read(clientID: FlowIdentity.clientID) { contents in
                contents.document[.idToken].values.first?.source
            }
            #expect(document != nil, "the entries are slices of a document read from the file")
            kept = (try #require(accounts.first), result)
        }
        #expect(document == nil, "an account or result kept by the app still holds the cache document")
        let (account, result) = try #require(kept)
        #expect(account.accountClaims?["oid"] as? String == TestAccount.abe.uid)
        #expect(account.tenantProfiles?.first?.claims != nil)
        #expect(result.idToken?.split(separator: ".").count == 3)
    }
}
