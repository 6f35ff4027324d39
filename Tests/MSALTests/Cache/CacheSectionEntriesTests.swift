import Foundation
import Testing

@testable import MSAL

/// A section read from a document keeps its entries in reading order and makes its table by key
/// on first need; it must behave as the table would, copies included.
@Suite("Token cache section entries")
struct CacheSectionEntriesTests {
    static func entries(_ count: Int) -> [CacheSectionEntries.KeyedEntry] {
        (0..<count).map { CacheSectionEntries.KeyedEntry(key: "key-\($0)", entry: CacheEntry(["secret": "s\($0)"])) }
    }

    @Test("A read section answers as its table: count, lookups, every entry in reading order, equality")
    func readSection() {
        let read = CacheSectionEntries(read: Self.entries(100))
        let table = CacheSectionEntries(Dictionary(uniqueKeysWithValues: Self.entries(100).map { ($0.key, $0.entry) }))
        #expect(read.count == 100)
        #expect(!read.isEmpty)
        #expect(read["key-42"]?["secret"] == "s42")
        #expect(read["key-100"] == nil)
        var order: [String] = []
        read.forEach { key, _ in order.append(key) }
        #expect(order == (0..<100).map { "key-\($0)" })
        #expect(read == table)
        #expect(read.dictionary == table.dictionary)
        #expect(CacheSectionEntries(read: []).isEmpty)
        #expect(read != CacheSectionEntries(read: Self.entries(99)))
    }

    @Test("Changing a copy of a read section leaves the other copies as they were")
    func copies() {
        let original = CacheSectionEntries(read: Self.entries(10))
        var changed = original
        changed["key-3"] = CacheEntry(["secret": "new"])
        changed["key-new"] = CacheEntry(["secret": "added"])
        var removed = original
        #expect(removed.removeValue(forKey: "key-4")?["secret"] == "s4")
        #expect(removed.removeValue(forKey: "key-4") == nil)
        var modified = original
        modified.mutableDictionary["key-5"] = nil

        #expect(original.count == 10)
        #expect(original["key-3"]?["secret"] == "s3")
        #expect(original["key-4"] != nil && original["key-5"] != nil)
        #expect(changed.count == 11)
        #expect(changed["key-3"]?["secret"] == "new")
        #expect(removed.count == 9)
        #expect(modified.count == 9 && modified["key-5"] == nil)
    }

    @Test("Many threads asking a read section for its table at once all get the same entries")
    func concurrentTables() async {
        let section = CacheSectionEntries(read: Self.entries(2_000))
        let counts = await withTaskGroup(of: Int.self) { group in
            for round in 0..<16 {
                group.addTask {
                    let table = section.dictionary
                    return table.count == 2_000 && table["key-\(round * 100)"]?["secret"] == "s\(round * 100)" ? 1 : 0
                }
            }
            return await group.reduce(0, +)
        }
        #expect(counts == 16)
    }

    @Test("A document read and then changed through its contents writes what a document read as a table writes")
    func readThenChanged() throws {
        let bytes = Array(
            #"""
            {"AccessToken": {"a": {"home_account_id": "h", "environment": "e", "client_id": "c", "secret": "1", "target": "x"},
                             "b": {"home_account_id": "h", "environment": "e", "client_id": "c", "secret": "2", "target": "y"}},
             "Account": {"h-e-r": {"home_account_id": "h", "environment": "e", "realm": "r", "local_account_id": "l"}}}
            """#.utf8)
        var contents = try TokenCacheContents(parsing: bytes)
        let before = contents.document
        contents.upsert(
            CacheEntry([
                "home_account_id": "h", "environment": "e", "client_id": "c", "secret": "3", "target": "x",
            ]), key: "a", in: .accessToken)
        contents.remove(key: "b", from: .accessToken)
        #expect(before[.accessToken]["a"]?["secret"] == "1")
        #expect(before[.accessToken].count == 2)
        #expect(contents.document[.accessToken].keys.sorted() == ["a"])
        #expect(contents.document[.accessToken]["a"]?["secret"] == "3")
        let reread = try TokenCacheContents(parsing: contents.document.serialized())
        #expect(reread.document == contents.document)
        #expect(CacheDocumentReaderTests.describe(reread.index) == CacheDocumentReaderTests.describe(contents.index))
    }

    @Test("Keys repeated far apart in a large section: the last one wins and the index holds only it")
    func repeatedFarApart() throws {
        var members: [String] = []
        for number in 0..<3_000 {
            members.append(
                #""k\#(number)": {"home_account_id": "h\#(number)", "environment": "e", "client_id": "c", "secret": "first", "target": "x"}"#
            )
        }
        members.append(#""k7": {"home_account_id": "other", "environment": "e", "client_id": "c", "secret": "last", "target": "x"}"#)
        let bytes = Array(#"{"AccessToken": {\#(members.joined(separator: ",\n"))}}"#.utf8)
        let contents = try TokenCacheContents(parsing: bytes)
        #expect(contents.document[.accessToken].count == 3_000)
        #expect(contents.document[.accessToken]["k7"]?["secret"] == "last")
        #expect(contents.accessTokenKeys(homeAccountID: "h7", environment: "e", clientID: "c", realm: "").isEmpty)
        #expect(
            contents.accessTokenKeys(homeAccountID: "other", environment: "e", clientID: "c", realm: "").map(\.entry["secret"]) == ["last"])
        let separate = TokenCacheContents(document: try TokenCacheDocument(parsing: bytes))
        #expect(CacheDocumentReaderTests.describe(contents.index) == CacheDocumentReaderTests.describe(separate.index))
    }

    @Test("Repeated key hashes are found wherever they fall: spread out, crowded into one bucket, or none at all")
    func repeatedHashes() {
        var random = CacheDocumentReaderTests.Generator(state: 77)
        for count in [0, 1, 2, 17, 1_000, 10_000] {
            let distinct = (0..<count).map { _ in random.next() }
            #expect(!CacheDocumentReader.mayRepeat(Array(Set(distinct))))
            guard count > 1 else { continue }
            var repeated = Array(Set(distinct))
            repeated.append(repeated[Int.random(in: 0..<repeated.count, using: &random)])
            repeated.shuffle(using: &random)
            #expect(CacheDocumentReader.mayRepeat(repeated), "\(count)")
        }
        // Hashes that share their top 24 bits all land in one bucket (the sorted path).
        let crowded = (0..<500).map { UInt64(0xABCD_EF00_0000_0000) | UInt64($0) &* 7_919 }
        #expect(!CacheDocumentReader.mayRepeat(crowded))
        #expect(CacheDocumentReader.mayRepeat(crowded + [crowded[250]]))
        // A few per bucket (the pairwise path), the repeat at the ends of its bucket.
        let pairs = (0..<64).map { UInt64($0) << 58 | 5 } + (0..<64).map { UInt64($0) << 58 | 9 }
        #expect(!CacheDocumentReader.mayRepeat(pairs))
        #expect(CacheDocumentReader.mayRepeat(pairs + [UInt64(63) << 58 | 9]))
    }
}
