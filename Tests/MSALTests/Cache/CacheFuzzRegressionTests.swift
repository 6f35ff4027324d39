import Foundation
import Testing

@testable import MSAL

/// Inputs the `FuzzCacheDocument` fuzz target (FuzzTesting/, docs/reliability.md "Fuzzing") found,
/// kept as they were found, and the cases around them.
@Suite("Token cache: fuzzing regressions")
struct CacheFuzzRegressionTests {
    /// The input `FuzzCacheDocument` stopped on (minimized): two AppMetadata entries of one client
    /// naming different families. The index built while reading took the family read last; one
    /// built from the finished document took whichever its dictionary listed last.
    static let twoFamilies = Array(
        #"""
        {"Account":{"000--":{"home_ential_type":"Refresh1"}},"AppMetadata":{"appmetadatauid1.utid1|log)nogin.wind8-a3f5-a467":{"client_id":"6cb04018-a3f5-46a7-b995-940c78f5aef3","environment":"login.windows.net","family_id":"78-1234-1234-1234-12342eca5aef3","credential_":"1700000000","fRangy_id":"1"}},"AppMetadata":{"appmetadatauid1.utid1|log)ut46a7-b995-940c78f5aef3":{"client_id":"6cb04018-a3f5-46a7-b995-940c78f5aef3","environment":"login.windows.net","family_id":"1"}}}
        """#.utf8)

    @Test("Two AppMetadata entries of a client naming different families index the same in any order: the smallest family")
    func twoFamiliesAnyOrder() throws {
        let client = "6cb04018-a3f5-46a7-b995-940c78f5aef3"
        let fused = try TokenCacheContents(parsing: Self.twoFamilies)
        let separate = TokenCacheContents(document: try TokenCacheDocument(parsing: Self.twoFamilies))
        #expect(CacheDocumentReaderTests.describe(fused.index) == CacheDocumentReaderTests.describe(separate.index))
        #expect(fused.index.familyOfClient[client] == "1")

        // The same two entries inserted one way and the other.
        let entries = Array(fused.document[.appMetadata])
        try #require(entries.count == 2)
        for order in [entries, entries.reversed()] {
            var index = TokenCacheIndex()
            for (key, entry) in order {
                index.insert(key: key, entry: entry, section: .appMetadata, aliases: .builtIn)
            }
            #expect(index.familyOfClient[client] == "1")
        }
    }

    @Test("Leaving the family in one cloud while another cloud's AppMetadata names it keeps the index equal to a rebuilt one")
    func leavingTheFamilyInOneCloud() {
        var contents = TokenCacheContents()
        contents.upsert(
            CacheEntry(["client_id": "c", "environment": "login.windows.net", "family_id": "1"]),
            key: "appmetadata-login.windows.net-c", in: .appMetadata)
        contents.upsert(
            CacheEntry(["client_id": "c", "environment": "login.microsoftonline.us", "family_id": "1"]),
            key: "appmetadata-login.microsoftonline.us-c", in: .appMetadata)
        // What `client_mismatch` records, in one cloud: replacing the entry removes it from the index first.
        contents.upsert(
            CacheEntry(["client_id": "c", "environment": "login.microsoftonline.us", "family_id": ""]),
            key: "appmetadata-login.microsoftonline.us-c", in: .appMetadata)
        let rebuilt = TokenCacheIndex(document: contents.document, aliases: contents.aliases)
        #expect(contents.index.familyOfClient == rebuilt.familyOfClient)
        #expect(contents.index.familyOfClient["c"] == "1")

        // Both clouds out of the family: out of it; both entries gone: unknown again.
        contents.upsert(
            CacheEntry(["client_id": "c", "environment": "login.windows.net", "family_id": ""]),
            key: "appmetadata-login.windows.net-c", in: .appMetadata)
        #expect(contents.index.familyOfClient["c"] == "")
        contents.remove(key: "appmetadata-login.windows.net-c", from: .appMetadata)
        #expect(contents.index.familyOfClient["c"] == "")
        contents.remove(key: "appmetadata-login.microsoftonline.us-c", from: .appMetadata)
        #expect(contents.index.familyOfClient["c"] == nil)
        #expect(contents.index.family(of: "c") == TokenCacheIndex.assumedFamily)
    }
}
