import Foundation
import Testing

@testable import MSAL

/// A cache file is read straight into an owned ``CacheSource`` that the reader compacts in place:
/// the loaded cache keeps only its string values, and nothing it reads back differs from reading
/// the same bytes shared (no compaction).
@Suite("Cache source: values compacted in place when loading a file")
struct CacheSourceCompactionTests {
    /// A document with `accounts` accounts in MSAL for Python's indented form, plus the shapes the
    /// reader treats specially: escapes, DEL, a non-ASCII name, numbers, an unknown member holding
    /// an object, an unknown section, an entry that is not an object.
    static func document(accounts: Int, secretLength: Int) -> String {
        var sections: [String: [String]] = [:]
        for index in 0..<accounts {
            let home = "\(index)-uid.utid"
            let secret = String(repeating: Character(UnicodeScalar(UInt8(ascii: "a") + UInt8(index % 26))), count: secretLength)
            sections["AccessToken", default: []].append(
                #"""
                        "\#(home)-login.microsoftonline.com-accesstoken-client-utid-user.read": {
                            "credential_type": "AccessToken",
                            "secret": "\#(secret)",
                            "home_account_id": "\#(home)",
                            "environment": "login.microsoftonline.com",
                            "client_id": "client",
                            "target": "User.Read",
                            "realm": "utid",
                            "cached_at": 1767225600,
                            "expires_on": "4102444800",
                            "extended_expires_on": 4102444800.5,
                            "x_extra": {"nested": [1, "two", null]}
                        }
                """#)
            sections["Account", default: []].append(
                #"""
                        "\#(home)-login.microsoftonline.com-utid": {
                            "home_account_id": "\#(home)",
                            "environment": "login.microsoftonline.com",
                            "realm": "utid",
                            "local_account_id": "uid-\#(index)",
                            "username": "us\u00e9r\#(index)@example.com \u0041\"\\ \#u{7F}",
                            "authority_type": "MSSTS",
                            "caf\#u{E9}": "non-ASCII name"
                        }
                """#)
            sections["IdToken", default: []].append(
                #"""
                        "\#(home)-login.microsoftonline.com-idtoken-client-utid-": {
                            "credential_type": "IdToken",
                            "secret": "id.\#(secret)",
                            "home_account_id": "\#(home)",
                            "environment": "login.microsoftonline.com",
                            "realm": "utid",
                            "client_id": "client"
                        }
                """#)
            sections["RefreshToken", default: []].append(
                #"""
                        "\#(home)-login.microsoftonline.com-refreshtoken-client--": {
                            "credential_type": "RefreshToken",
                            "secret": "rt-\#(secret)",
                            "home_account_id": "\#(home)",
                            "environment": "login.microsoftonline.com",
                            "client_id": "client"
                        }
                """#)
        }
        sections["AppMetadata"] = [
            #"        "appmetadata-login.microsoftonline.com-client": {"client_id": "client", "environment": "login.microsoftonline.com"}"#
        ]
        sections["IdToken", default: []].append(#"        "not-an-object": [1, 2, 3]"#)
        var text = "{\n"
        for (name, entries) in sections.sorted(by: { $0.key < $1.key }) {
            text += "    \"\(name)\": {\n" + entries.joined(separator: ",\n") + "\n    },\n"
        }
        return text + "    \"x_unknown_section\": {\"keep\": [true, false]}\n}\n"
    }

    /// Loads `text` from a file the way the file store does.
    static func loadFromFile(_ text: String) throws -> TokenCacheContents {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try TokenCacheFile(path: scratch.file())
        _ = try file.put(text)
        let source = try #require(try file.withLock(exclusive: false) { try $0.readStamped()?.source })
        #expect(source.isOwned)
        return try TokenCacheContents(parsing: source)
    }

    /// Every distinct source the entries of `document` hold.
    static func sources(_ document: TokenCacheDocument) -> [CacheSource] {
        var found: [ObjectIdentifier: CacheSource] = [:]
        for section in CacheSection.allCases {
            for entry in document[section].values {
                if let source = entry.source { found[ObjectIdentifier(source)] = source }
            }
        }
        return Array(found.values)
    }

    /// The bytes of every slice of `document`, in the form it was read (escapes as written).
    static func sliceBytes(_ document: TokenCacheDocument) -> Int {
        var total = 0
        for section in CacheSection.allCases {
            for entry in document[section].values {
                for member in entry.members {
                    if let slice = member.slice { total += slice.range.count }
                }
            }
        }
        return total
    }

    @Test("A file loads to the same document, index and written bytes as the same bytes read shared", arguments: [1, 40, 1_500])
    func sameAsShared(accounts: Int) throws {
        // 1,500 accounts with 700-byte secrets is a 3.7 MB document: pages are given back while it loads.
        let text = Self.document(accounts: accounts, secretLength: 700)
        let shared = try TokenCacheContents(parsing: Array(text.utf8))
        let loaded = try Self.loadFromFile(text)
        #expect(loaded.document == shared.document)
        #expect(loaded.document.entryCount == shared.document.entryCount)
        #expect(loaded.document.serialized() == shared.document.serialized())
        #expect(
            Set(loaded.accounts(clientID: "client", environment: nil, signedInOnly: true).map(\.identifier))
                == Set(shared.accounts(clientID: "client", environment: nil, signedInOnly: true).map(\.identifier)))
        // What the file holds and what the cache keeps: only the string values, back to back.
        let sources = Self.sources(loaded.document)
        #expect(sources.count == 1)
        let source = try #require(sources.first)
        #expect(source.count == Self.sliceBytes(loaded.document))
        // ID tokens are kept bytes like every other value (the index makes each a string when an
        // account list or a cache hit first hands it out).
        let idTokens = loaded.document[.idToken].values.compactMap { $0.ownedString(.secret) }
        #expect(idTokens.count == accounts)
        #expect(
            loaded.document[.idToken].values.allSatisfy { entry in entry.members.allSatisfy { $0.known != .secret || $0.slice != nil } })
        #expect(source.count < text.utf8.count * 3 / 4)
        // The shared read leaves the caller's bytes as they were.
        let sharedSources = Self.sources(shared.document)
        #expect(sharedSources.first?.count == text.utf8.count)
        #expect(sharedSources.first?.allBytes == Array(text.utf8))
    }

    @Test("Duplicate and legacy mixed-case keys: the same winners as a shared read; their values stay within the kept bytes")
    func duplicatesAndLegacyKeys() throws {
        let text = #"""
            {"Account": {
              "uid.utid-login.microsoftonline.com-utid": {"home_account_id": "uid.utid", "environment": "login.microsoftonline.com", "realm": "utid", "username": "first"},
              "UID.UTID-login.microsoftonline.com-UTID": {"home_account_id": "uid.utid", "environment": "login.microsoftonline.com", "realm": "utid", "username": "legacy"},
              "uid.utid-login.microsoftonline.com-utid": {"home_account_id": "uid.utid", "environment": "login.microsoftonline.com", "realm": "utid", "username": "last"}
            }}
            """#
        let shared = try TokenCacheContents(parsing: Array(text.utf8))
        let loaded = try Self.loadFromFile(text)
        #expect(loaded.document == shared.document)
        #expect(loaded.document.serialized() == shared.document.serialized())
        let source = try #require(Self.sources(loaded.document).first)
        #expect(source.count >= Self.sliceBytes(loaded.document))
    }

    @Test("A file that stops being JSON part-way is cacheCorrupt with the offset a shared read reports", arguments: [40, 1_500])
    func corruptPartWay(accounts: Int) throws {
        var text = Self.document(accounts: accounts, secretLength: 700)
        let cut = text.index(text.startIndex, offsetBy: text.utf8.count * 9 / 10)
        text.insert(contentsOf: "\u{01}", at: cut)
        var sharedError: MSALFailure?
        do { _ = try TokenCacheContents(parsing: Array(text.utf8)) } catch { sharedError = error }
        var fileError: MSALFailure?
        do { _ = try Self.loadFromFile(text) } catch { fileError = error as? MSALFailure }
        #expect(sharedError?.internalCode == .cacheCorrupt)
        #expect(fileError?.internalCode == .cacheCorrupt)
        #expect(fileError?.message == sharedError?.message)
    }

    @Test("An empty or blank file is an empty cache")
    func blank() throws {
        for text in ["", "  \n\t ", "\u{FEFF}  "] {
            let loaded = try Self.loadFromFile(text)
            #expect(loaded.document.entryCount == 0)
        }
    }
}
