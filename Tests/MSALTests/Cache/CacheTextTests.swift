import Foundation
import Testing

@testable import MSAL

@Suite("Cache text helpers used on the silent path")
struct CacheTextTests {
    @Test("ASCII case-insensitive equality folds letters only")
    func asciiEquality() {
        #expect(CacheText.equalIgnoringASCIICase("Organizations", "organizations"))
        #expect(CacheText.equalIgnoringASCIICase("72F988BF-86F1-41AF-91AB-2D7CD011DB47", "72f988bf-86f1-41af-91ab-2d7cd011db47"))
        #expect(CacheText.equalIgnoringASCIICase("", ""))
        #expect(!CacheText.equalIgnoringASCIICase("common", "commons"))
        #expect(!CacheText.equalIgnoringASCIICase("common", "c0mmon"))
        // `@` (0x40) and `` ` `` (0x60) differ only in the bit a naive fold sets; `[` and `{` likewise.
        #expect(!CacheText.equalIgnoringASCIICase("a@b", "a`b"))
        #expect(!CacheText.equalIgnoringASCIICase("[", "{"))
        // No Unicode folding: non-ASCII bytes must match exactly.
        #expect(!CacheText.equalIgnoringASCIICase("É", "é"))
        #expect(CacheText.equalIgnoringASCIICase("Éa", "ÉA"))
    }

    @Test("GUID shape: 8-4-4-4-12 hexadecimal digits, either case")
    func guidShape() {
        #expect(CacheText.isGUID("72f988bf-86f1-41af-91ab-2d7cd011db47"))
        #expect(CacheText.isGUID("9188040D-6C67-4C5B-B112-36A304B66DAD"))
        #expect(!CacheText.isGUID("contoso.onmicrosoft.com"))
        #expect(!CacheText.isGUID("72f988bf-86f1-41af-91ab-2d7cd011db4"))
        #expect(!CacheText.isGUID("72f988bf-86f1-41af-91ab-2d7cd011db47a"))
        #expect(!CacheText.isGUID("72f988bf_86f1-41af-91ab-2d7cd011db47"))
        #expect(!CacheText.isGUID("72f988bg-86f1-41af-91ab-2d7cd011db47"))
        #expect(!CacheText.isGUID(""))
        // Agrees with Foundation's parser on every shape it accepts.
        for _ in 0..<100 {
            let text = UUID().uuidString
            #expect(CacheText.isGUID(text) && CacheText.isGUID(text.lowercased()))
        }
    }

    @Test("Scope strings split on runs of spaces, as the generic split does")
    func scopeStrings() {
        let targets = ["User.Read", "User.Read Mail.Read  openid", "  leading trailing  ", "", "   ", "a b", "Ünïcode.Scope x"]
        for target in targets {
            #expect(CacheText.scopeStrings(target) == CacheText.scopes(target).map(String.init), "\(target)")
        }
    }
}

@Suite("Correlation ids")
struct CorrelationIDTests {
    @Test("Random version-4 UUIDs with the RFC 9562 variant, all different")
    func versionAndVariant() {
        var seen = Set<UUID>()
        let pool = CorrelationID()
        // Ids from a client's pool (refilled every 64) and one-off ones.
        for index in 0..<1000 {
            let id = index % 3 == 0 ? CorrelationID.make() : pool.make()
            let bytes = id.uuid
            #expect(bytes.6 >> 4 == 4)
            #expect(bytes.8 >> 6 == 0b10)
            #expect(UUID(uuidString: id.uuidString) == id)
            seen.insert(id)
        }
        #expect(seen.count == 1000)
    }
}
