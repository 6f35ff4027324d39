import Foundation
import MSALJSON
import Testing

@testable import MSAL

/// The one-pass cache document reader accepts and rejects exactly what MSALJOSE's validating JSON
/// reader does, decodes strings the same way (eight, sixteen and thirty-two bytes at a time or
/// not), and the writer escapes exactly as `JSONStringEncoding` does.
@Suite("Token cache document reader and writer")
struct CacheDocumentReaderTests {
    /// A deterministic generator (SplitMix64), so a failure reproduces.
    struct Generator: RandomNumberGenerator {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var value = state
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
    }

    /// What the reader must do with `bytes`: what `JSONDocument` with the same limits, then the
    /// shape checks, decide (both drive `JSONScanner`; this checks the cache's mapping on top).
    enum Outcome: Equatable {
        case accepted
        case rejected(MSALInternalError)
    }

    static func reference(_ bytes: [UInt8]) -> Outcome {
        var content = bytes[...]
        if content.starts(with: [0xEF, 0xBB, 0xBF]) { content = content.dropFirst(3) }
        if content.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return .accepted }
        let document: JSONDocument
        do {
            document = try JSONDocument(parsing: Array(content), limits: TokenCacheDocument.readingLimits)
        } catch {
            // Past the size cap a file is never parsed; inside it, every failure (limits included) is corrupt.
            return .rejected(.cacheCorrupt)
        }
        guard document.root.kind == .object else { return .rejected(.cacheCorrupt) }
        for (name, value) in document.root.members where CacheFixtures.sections.contains(name.string ?? "") {
            if value.kind != .object { return .rejected(.cacheCorrupt) }
        }
        return .accepted
    }

    static func actual(_ bytes: [UInt8]) -> Outcome {
        do {
            _ = try TokenCacheDocument(parsing: bytes)
            return .accepted
        } catch {
            return .rejected(error.internalCode ?? .cacheCorrupt)
        }
    }

    /// A small document with what the reader treats specially: escapes, non-ASCII, numbers in
    /// numeric members, a list target, a legacy key, nested unknown values, a long token.
    static let seed = Array(
        #"""
        {"AccessToken": {"Home-Env-AccessToken-Client-Realm-Target": {"home_account_id": "Home", "secret": "eyJ0eXAiOiJKV1QiLCJub25jZSI6ImFiYyJ9.eyJhdWQiOiIwMDAwMDAwMy0wMDAwLTAwMDAtYzAwMC0wMDAwMDAwMDAwMDAifQ.c2lnbmF0dXJl", "expires_on": 1700000000, "cached_at": 1.5e9, "target": ["a", "B\u00e9"], "x": {"n": [1, -2.5e-3, true, false, null, "\ud83d\ude00"]}},
          "home-env-accesstoken-client-realm-target": {"home_account_id": "home", "secret": "caf\u00e9 \"q\" \\ \/ \b\f\n\r\t é 😀 \u007f"}},
         "Account": {}, "Other": [{"deep": [[[]]]}], "Num": -0.0e+1}
        """#.utf8)

    @Test("Every single-byte mutation at every offset of a string: accepted or rejected as before, decoded the same")
    func singleBytes() throws {
        let prefix = Array(#"{"AccessToken": {"k": {"secret": ""#.utf8)
        let suffix = Array(#""}}}"#.utf8)
        let filler = UInt8(ascii: "a")
        for length in [1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 70] {
            for offset in 0..<length {
                for byte in UInt8.min...UInt8.max {
                    var value = [UInt8](repeating: filler, count: length)
                    value[offset] = byte
                    let bytes = prefix + value + suffix
                    let expected = Self.reference(bytes)
                    #expect(Self.actual(bytes) == expected, "byte \(byte) at \(offset) of \(length)")
                    if expected == .accepted {
                        let entry = try #require(try TokenCacheDocument(parsing: bytes)[.accessToken]["k"])
                        #expect(entry["secret"] == String(decoding: value, as: UTF8.self))
                    }
                }
            }
        }
    }

    @Test("Escapes and multi-byte characters at every offset of long strings decode as JSONDocument decodes them")
    func escapesAtEveryOffset() throws {
        let pieces = [
            #"\""#, #"\\"#, #"\/"#, #"\b"#, #"\u0000"#, #"\u00e9"#, #"\ud83d\ude00"#, "é", "€", "😀", "\u{7F}", #"\ud800"#, #"\x"#,
        ]
        for piece in pieces {
            for length in [0, 5, 8, 13, 16, 29, 32, 45] {
                for split in 0...length {
                    let text = String(repeating: "b", count: split) + piece + String(repeating: "c", count: length - split)
                    let bytes = Array(#"{"IdToken": {"k": {"secret": "\#(text)", "realm": "r"}}}"#.utf8)
                    let expected = Self.reference(bytes)
                    #expect(Self.actual(bytes) == expected, "\(piece) after \(split)")
                    guard expected == .accepted else { continue }
                    let reference = try JSONDocument(parsing: bytes, limits: TokenCacheDocument.readingLimits).root["IdToken"]?["k"]?[
                        "secret"]?.string
                    let document = try TokenCacheDocument(parsing: bytes)
                    #expect(document[.idToken]["k"]?["secret"] == reference, "\(piece) after \(split)")
                    // Written back and read again: the same value, and writing again changes nothing.
                    let written = document.serialized()
                    #expect(try TokenCacheDocument(parsing: written)[.idToken]["k"]?["secret"] == reference)
                    #expect(try TokenCacheDocument(parsing: written).serialized() == written)
                }
            }
        }
    }

    @Test("Thousands of random mutations of a document: accepted or rejected exactly as before, content kept when accepted")
    func randomMutations() throws {
        var generator = Generator(state: 20_261_121)
        let interesting: [UInt8] =
            Array(#"{}[]:,"\ 0-.eE+utnfal"#.utf8) + [0x00, 0x09, 0x0A, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xC3, 0xE0, 0xED, 0xF0, 0xF4, 0xFF]
        #expect(Self.actual(Self.seed) == .accepted)
        var accepted = 0
        for round in 0..<4000 {
            var bytes = Self.seed
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: bytes.remove(at: position)
                case 1: bytes.insert(interesting.randomElement(using: &generator)!, at: position)
                case 2: bytes[position] = interesting.randomElement(using: &generator)!
                default: bytes[position] = UInt8.random(in: 0...255, using: &generator)
                }
            }
            let expected = Self.reference(bytes)
            #expect(Self.actual(bytes) == expected, "round \(round): \(String(decoding: bytes, as: UTF8.self))")
            guard expected == .accepted, let original = try? CacheFixtures.foundationJSON(bytes) else { continue }
            accepted += 1
            let written = try TokenCacheDocument(parsing: bytes).serialized()
            let actual = try CacheFixtures.foundationJSON(written)
            #expect(CacheFixtures.equal(CacheFixtures.normalized(actual), CacheFixtures.normalized(original)), "round \(round)")
        }
        #expect(accepted > 100)
    }

    /// The index as sorted text: the same whichever order it was built in.
    static func describe(_ index: TokenCacheIndex) -> [String] {
        var lines = index.familyOfClient.map { "family \($0.key) \($0.value)" }
        for (account, items) in index.accounts {
            for item in items {
                lines.append(
                    "\(account.home) \(account.environment) \(item.section) \(item.client) \(item.realm) \(item.key) \(item.isFamily) "
                        + "\(item.scopes.sorted()) \(item.target) \(item.entry.fields.map { "\($0.name)=\($0.value)" })")
            }
        }
        return lines.sorted()
    }

    @Test("A section written twice is merged, a later entry winning under the same key (MSAL for Python keeps only the last section)")
    func duplicateSections() throws {
        let bytes = Array(
            #"""
            {"AccessToken": {"a": {"home_account_id": "h", "environment": "e", "client_id": "c", "secret": "first-a", "target": "x"},
                             "same": {"home_account_id": "h", "environment": "e", "client_id": "c", "secret": "first", "target": "y"}},
             "AccessToken": {"b": {"home_account_id": "h", "environment": "e", "client_id": "c", "secret": "second-b", "target": "z"},
                             "same": {"home_account_id": "h", "environment": "e", "client_id": "c", "secret": "second", "target": "y"}}}
            """#.utf8)
        let contents = try TokenCacheContents(parsing: bytes)
        let secrets = Dictionary(uniqueKeysWithValues: contents.document[.accessToken].map { ($0.key, $0.value["secret"] ?? "") })
        // Nothing another writer put in the file is dropped: "a" of the first section stays.
        #expect(secrets == ["a": "first-a", "b": "second-b", "same": "second"])
    }

    @Test("Duplicate and legacy keys in every order of up to five entries: the last lower-case one wins, else the last one")
    func duplicateKeyOrders() throws {
        // Each entry is one of four spellings of two keys; every sequence of length 1...5 (1,364 of them),
        // in one section, and split over the section written twice.
        let spellings = ["k", "K", "j", "J"]
        var sequences: [[Int]] = [[]]
        var checked = 0
        for _ in 1...5 {
            sequences = sequences.flatMap { sequence in spellings.indices.map { sequence + [$0] } }
            for sequence in sequences {
                let entries = sequence.enumerated().map { position, spelling in
                    #""\#(spellings[spelling])": {"home_account_id": "h", "environment": "e", "client_id": "c", "secret": "\#(position)", "target": "s"}"#
                }
                // The rule, forward, over the entries at `positions`: per lower-cased key, the last
                // entry spelled in lower case, else the last entry.
                func winners(_ positions: Range<Int>) -> [String: String] {
                    var winners: [String: String] = [:]
                    for key in ["k", "j"] {
                        let matching = positions.filter { spellings[sequence[$0]].lowercased() == key }
                        let exact = matching.filter { spellings[sequence[$0]] == key }
                        if let winner = exact.last ?? matching.last { winners[key] = String(winner) }
                    }
                    return winners
                }
                let cut = sequence.count / 2
                // Split over the section written twice, the later section's entries replace the
                // earlier's under the same key, whatever the spelling.
                var documents = [(#"{"AccessToken": {\#(entries.joined(separator: ", "))}}"#, winners(sequence.indices))]
                if sequence.count > 1 {
                    documents.append(
                        (
                            #"{"AccessToken": {\#(entries[..<cut].joined(separator: ", "))}, "AccessToken": {\#(entries[cut...].joined(separator: ", "))}}"#,
                            winners(0..<cut).merging(winners(cut..<sequence.count)) { _, later in later }
                        ))
                }
                for (document, wanted) in documents {
                    let bytes = Array(document.utf8)
                    let contents = try TokenCacheContents(parsing: bytes)
                    let secrets = contents.document[.accessToken].mapValues { $0["secret"] ?? "" }
                    #expect(secrets == wanted, "\(document)")
                    // The index built while reading equals one built from the entries kept.
                    let separate = TokenCacheContents(document: try TokenCacheDocument(parsing: bytes))
                    #expect(Self.describe(contents.index) == Self.describe(separate.index), "\(document)")
                    checked += 1
                }
            }
        }
        #expect(checked == 1_364 + 1_360)
    }

    @Test("Indexing while reading gives the index built from the document read, duplicates and legacy keys included")
    func indexWhileReading() throws {
        var documents = try CacheFixtures.names("documents").map { try CacheFixtures.bytes("documents", $0) }
        documents.append(Self.seed)
        documents.append(
            Array(
                #"""
                {"RefreshToken": {"h-e-refreshtoken-c--": {"home_account_id": "H", "environment": "login.windows.net", "client_id": "C", "secret": "1"},
                                  "H-E-RefreshToken-C--": {"home_account_id": "H", "environment": "login.windows.net", "client_id": "C", "secret": "2"}},
                 "AccessToken": {"k": {"home_account_id": "h", "environment": "e", "client_id": "c", "secret": "s", "target": "a b"}},
                 "AccessToken": {"k": {"home_account_id": "h", "environment": "e", "client_id": "c", "secret": "t", "target": "b"},
                                 "k": {"home_account_id": "h2", "environment": "e", "client_id": "c", "secret": "u", "target": "c"}},
                 "AppMetadata": {"m": {"client_id": "c", "family_id": "1"}, "m": {"client_id": "c"}},
                 "Account": {"x": {"home_account_id": "h", "environment": "e", "realm": "r"}, "y": "opaque"}}
                """#.utf8))
        for bytes in documents {
            let fused = try TokenCacheContents(parsing: bytes)
            let separate = TokenCacheContents(document: try TokenCacheDocument(parsing: bytes))
            #expect(fused.document == separate.document)
            #expect(Self.describe(fused.index) == Self.describe(separate.index))
        }
        let duplicates = try TokenCacheContents(parsing: documents.last!)
        // The last of the duplicate AppMetadata members names no family: the client is known to be in none.
        #expect(duplicates.index.familyOfClient == ["c": ""])
        #expect(duplicates.accessTokenKeys(homeAccountID: "h2", environment: "e", clientID: "c", realm: "").map(\.entry["secret"]) == ["u"])
        #expect(duplicates.accessTokenKeys(homeAccountID: "h", environment: "e", clientID: "c", realm: "").isEmpty)
        #expect(
            duplicates.refreshToken(homeAccountID: "h", environment: "login.microsoftonline.com", clientID: "c")?.entry["secret"] == "1")
    }

    @Test("Nesting up to the limit is read; one level deeper is cacheCorrupt (moved aside like any unparsable file)")
    func depthLimit() throws {
        let limit = TokenCacheDocument.readingLimits.maxDepth
        for depth in [limit - 2, limit - 1, limit, limit + 1] {
            // The root object is level 1 and the unknown member's array level 2.
            let nested = String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1)
            let bytes = Array(#"{"Future": \#(nested)}"#.utf8)
            #expect(Self.actual(bytes) == Self.reference(bytes), "depth \(depth)")
            #expect(Self.actual(bytes) == (depth <= limit ? .accepted : .rejected(.cacheCorrupt)), "depth \(depth)")
            let inEntry = String(repeating: "{\"a\": ", count: depth - 3) + "1" + String(repeating: "}", count: depth - 3)
            let entryBytes = Array(#"{"Account": {"k": \#(inEntry)}}"#.utf8)
            #expect(Self.actual(entryBytes) == Self.reference(entryBytes), "entry depth \(depth)")
        }
    }

    @Test("Shapes: empty input, byte-order mark, not an object, a known section that is not an object, trailing bytes")
    func shapes() {
        let cases: [String] = [
            "", "  \n", "\u{FEFF}", "\u{FEFF}{}", "\u{FEFF}\u{FEFF}{}", " \u{FEFF}{}", "[]", "\"x\"", "12", "null", "{}",
            #"{"AccessToken": []}"#, #"{"AccessToken": "x"}"#, #"{"Unknown": []}"#, "{} x", "{}}", #"{"a":1,}"#, #"{"a" 1}"#,
            #"{"AccessToken": {"k": 1, "K": [], "k2": "x"}}"#, #"{"AccessToken": {}, "AccessToken": {"k": {}}}"#,
        ]
        for text in cases {
            let bytes = Array(text.utf8)
            #expect(Self.actual(bytes) == Self.reference(bytes), "\(text.debugDescription)")
        }
    }

    @Test("The writer escapes every character exactly as JSONStringEncoding does, at every offset")
    func writerEscapes() throws {
        var characters = (0...0x7F).map { String(UnicodeScalar(UInt8($0))) }
        characters += ["é", "€", "😀", "\u{2028}"]
        for character in characters {
            for split in [0, 3, 8, 11, 20] {
                let value = String(repeating: "v", count: split) + character + String(repeating: "w", count: 9)
                var document = TokenCacheDocument()
                document[.account]["k"] = CacheEntry(["secret": value, "odd\(character)name": "x"])
                let key = String(repeating: "k", count: split) + character.lowercased() + String(repeating: "-", count: 17)
                document[.idToken][key] = CacheEntry(["realm": "r"])
                let written = document.serialized()
                for text in [value, key] {
                    var expected: [UInt8] = []
                    JSONStringEncoding.appendQuoted(text, to: &expected)
                    #expect(written.firstRange(of: expected) != nil, "\(character.unicodeScalars.first!.value) after \(split)")
                }
                let reread = try TokenCacheDocument(parsing: written)
                #expect(reread[.account]["k"]?["secret"] == value)
                #expect(reread[.account]["k"]?["odd\(character)name"] == "x")
                #expect(reread[.idToken][key]?["realm"] == "r")
                #expect(reread.serialized() == written)
            }
        }
    }

    @Test("Keys are written in the order of their UTF-8 bytes")
    func keyOrder() throws {
        var document = TokenCacheDocument()
        let keys = ["b", "a", "ab", "abcdefgh", "abcdefgh1", "abcdefgg~", "é", "z", "", "abcdefgh0", "A"]
        for key in keys { document[.account][key] = CacheEntry(["realm": key]) }
        let written = try #require(String(bytes: document.serialized(), encoding: .utf8))
        let positions = keys.map { key in written.range(of: "\"\(key)\": {")!.lowerBound }
        let order = zip(keys, positions).sorted { $0.1 < $1.1 }.map(\.0)
        #expect(order == keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }

    @Test("Every schema field: its name and byte matching agree")
    func knownFields() {
        for field in CacheKnownField.allCases {
            #expect(field.staticName.description == field.name)
            #expect(CacheKnownField(name: field.name) == field)
            #expect(CacheMember(name: field.name, value: .string("v")).known == field)
        }
        for name in ["", "nam", "Name", "secreT", "home_account_i", "home_account_idd", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "realm "] {
            #expect(CacheKnownField(name: name) == nil, "\(name)")
        }
        #expect(CacheFieldNames.isKnown("family_id"))
        #expect(!CacheFieldNames.isKnown("future_field"))
    }

    @Test("Members read from a document stay slices of it; changed ones are plain values; lookups see both")
    func slicesAndChanges() throws {
        let bytes = Array(#"{"Account": {"k": {"home_account_id": "h", "username": "u\u00e9", "future": {"a": 1}}}}"#.utf8)
        var entry = try #require(try TokenCacheDocument(parsing: bytes)[.account]["k"])
        #expect(entry.source != nil)
        if case .slice = entry.members[0].value {} else { Issue.record("home_account_id is not a slice") }
        #expect(entry["username"] == "ué")
        #expect(entry.fields.last == CacheField(name: "future", value: .raw(Array(#"{"a": 1}"#.utf8))))
        entry["username"] = "v"
        #expect(entry[.username] == "v")
        #expect(entry.string(.homeAccountID, reusing: "h") == "h")
        #expect(entry.string(.homeAccountID, reusing: "x") == "h")
        #expect(entry.ownedString(.username) == "v")
        var document = TokenCacheDocument()
        document[.account]["k"] = entry
        #expect(
            String(decoding: document.serialized(), as: UTF8.self).contains(
                #"{"home_account_id": "h", "username": "v", "future": {"a": 1}}"#))
    }

    @Test("An ID token stays bytes of the document until first handed out; then every account list and cache hit shares one string")
    func lazyIDTokens() throws {
        let token = String(repeating: "eyJ0eXAiOiJKV1QifQ-_", count: 5)
        let escaped = #"eyJ\u0041"# + String(repeating: "x", count: 70)
        let entry = { (secret: String, realm: String) in
            #"{"home_account_id": "uid.utid", "environment": "login.microsoftonline.com", "client_id": "c", "realm": "\#(realm)", "secret": "\#(secret)"}"#
        }
        let bytes = Array(
            #"""
            {"IdToken": {"a": \#(entry(token, "utid")), "b": \#(entry(escaped, "other"))},
             "Account": {"x": {"home_account_id": "uid.utid", "environment": "login.microsoftonline.com", "realm": "utid", "local_account_id": "uid", "username": "u"},
                         "y": {"home_account_id": "uid.utid", "environment": "login.microsoftonline.com", "realm": "other", "local_account_id": "uid", "username": "u"}},
             "RefreshToken": {"r": {"home_account_id": "uid.utid", "environment": "login.microsoftonline.com", "client_id": "c", "secret": "rt"}}}
            """#.utf8)
        let contents = try TokenCacheContents(parsing: bytes)
        for key in ["a", "b"] {
            let member = try #require(contents.document[.idToken][key]?.members.last)
            if case .slice = member.value {} else { Issue.record("\(key) is not a slice") }
        }
        let key = try #require(contents.index.accounts.keys.first)
        let items: [TokenCacheIndex.Item] = try #require(contents.index.accounts[key])
        let home = items.first { $0.section == .idToken && $0.realm == "utid" }
        let lazy = try #require(home?.idToken)
        #expect(lazy.value == token)
        #expect(items.first { $0.section == .idToken && $0.realm == "other" }?.idToken?.value == "eyJA" + String(repeating: "x", count: 70))
        // Account lists hand out the ID tokens (and the claims decoded from them).
        for _ in 0..<2 {
            let account = try #require(contents.accounts(clientID: "c", environment: nil, signedInOnly: true).first)
            let profiles = try #require(account.tenantProfiles)
            #expect(Set(profiles.compactMap(\.idToken)) == [token, "eyJA" + String(repeating: "x", count: 70)])
        }
        // Many threads making the string at once all get it.
        let fresh = try TokenCacheContents(parsing: bytes)
        let freshItems: [TokenCacheIndex.Item] = fresh.index.accounts[key] ?? []
        let shared = try #require(freshItems.first { $0.section == .idToken && $0.realm == "utid" }?.idToken)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in #expect(shared.value == token) }
        // Written back as read.
        let written = String(decoding: contents.document.serialized(), as: UTF8.self)
        #expect(written.contains(#""secret": "\#(token)""#))
        #expect(written.contains(#""secret": "eyJA"#))
        #expect(CacheLazyString("given").value == "given")
    }

    @Test("Values of 64 KiB and more are kept whole, from bytes handed in and from a file's compacted buffer")
    func longValues() throws {
        for length in [65_535, 65_536, 200_001] {
            let secret = String(repeating: "A", count: length - 1) + "z"
            let text = #"{"AccessToken": {"k": {"secret": "\#(secret)", "realm": "r", "future": "\#(secret)"}}}"#
            let owned = CacheSource(capacity: text.utf8.count)
            let filled = owned.append(upTo: text.utf8.count) { buffer in
                buffer.copyBytes(from: text.utf8)
                return text.utf8.count
            }
            #expect(filled && owned.isOwned)
            // A shared source keeps the values where they are; an owned one is compacted in place.
            for source in [CacheSource(bytes: Array(text.utf8)), owned] {
                let (document, _) = try TokenCacheDocument.parse(source, indexingWith: .builtIn)
                let entry = try #require(document[.accessToken]["k"])
                #expect(entry[.secret] == secret, "\(length)")
                #expect(entry["future"] == secret)
                #expect(entry[.realm] == "r")
                #expect(entry.string(.secret, reusing: secret) == secret)
                #expect(entry.withUTF8(.secret) { $0.count } == length)
                let reread = try TokenCacheDocument(parsing: document.serialized())
                #expect(reread == document)
            }
        }
    }
}
