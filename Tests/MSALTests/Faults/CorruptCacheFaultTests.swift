import Foundation
import Glibc
import Testing

@testable import MSAL

/// What is found at the cache path when the application next uses it: corrupt content (moved
/// aside, never deleted), empty content (an empty cache), something that is not a plain file of
/// this user (refused, untouched), and a valid document with members swift-msal does not know
/// (kept through writes).
@Suite("Fault injection: a corrupt or unsafe cache file")
struct CorruptCacheFaultTests {
    struct Content: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: @Sendable (_ valid: [UInt8]) -> [UInt8]
        var testDescription: String { name }
    }

    static let corrupt: [Content] = [
        Content(name: "truncated JSON") { Array($0.prefix($0.count / 2)) },
        Content(name: "garbage bytes") { _ in (0..<4_096).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) } },
        Content(name: "NUL bytes") { _ in [UInt8](repeating: 0, count: 512) },
        Content(name: "a JSON array") { _ in Array("[1,2,3]".utf8) },
        Content(name: "a JSON string") { _ in Array(#""token_cache""#.utf8) },
        Content(name: "a known section that is not an object") { _ in Array(#"{"AccessToken":[],"RefreshToken":{}}"#.utf8) },
        Content(name: "the valid document followed by garbage") { $0 + Array("}}garbage".utf8) },
    ]

    static let empty: [Content] = [
        Content(name: "zero bytes") { _ in [] },
        Content(name: "whitespace") { _ in Array(" \n\t\r\n".utf8) },
        Content(name: "a UTF-8 byte-order mark alone") { _ in [0xEF, 0xBB, 0xBF] },
    ]

    /// Replaces the cache file as another process would: a new file renamed over it.
    static func replace(_ path: String, with bytes: [UInt8], mode: mode_t = 0o600) throws {
        let temporary = path + ".other-writer"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno)!) }
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == bytes.count, chmod(temporary, mode) == 0, rename(temporary, path) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    /// Signs Ben in through the device code flow (a cache write).
    static func deviceCodeSignIn(_ harness: StorageFaultHarness, correlationID: UUID = UUID()) async throws -> MSALResult {
        let parameters = MSALTokenParameters(scopes: ["User.Read"])
        parameters.correlationId = correlationID
        return try await harness.app.acquireTokenWithDeviceCode(with: parameters) { _ in }
    }

    @Test(
        "Corrupt content: the operation fails with cacheCorrupt and the correlation id; the file is moved aside byte for byte; the cache starts empty and the next sign-in writes a new file",
        arguments: corrupt)
    func corruptContent(_ content: Content) async throws {
        let harness = try StorageFaultHarness()
        defer { harness.scratch.remove() }
        try harness.seed()
        let parameters = try harness.silentParameters(forceRefresh: false)
        let bad = content.bytes(try #require(harness.bytes()))
        try Self.replace(harness.path, with: bad)

        let error = await expectMSALError { try await harness.app.acquireTokenSilent(with: parameters) }
        #expect(error?.code == .internal)
        #expect(error?.internalCode == .cacheCorrupt, "\(String(describing: error))")
        #expect(error?.correlationID == parameters.correlationId)
        let quarantined = harness.names().filter { $0.hasPrefix("token_cache.json.corrupt-") }
        try #require(quarantined.count == 1, "\(harness.names())")
        let moved = harness.scratch.file(quarantined[0])
        #expect(error?.message.contains(moved) == true, "the error names where the file went: \(String(describing: error?.message))")
        #expect(FileManager.default.contents(atPath: moved).map { [UInt8]($0) } == bad, "nothing of it is lost")
        #expect(RawFile.mode(moved) == 0o600)
        #expect(harness.bytes() == nil)
        #expect(harness.transport.requests.isEmpty, "no token request on a cache error")

        // The cache starts empty, and the next sign-in writes a fresh, valid file.
        #expect(try harness.app.allAccounts().isEmpty)
        let result = try await Self.deviceCodeSignIn(harness)
        #expect(try harness.app.allAccounts().compactMap(\.identifier) == [result.account.identifier])
        let fresh = try #require(harness.bytes())
        #expect(try TokenCacheDocument(parsing: fresh)[.account].count == 1)
        #expect(FileManager.default.contents(atPath: moved).map { [UInt8]($0) } == bad)
        #expect(harness.names().filter { $0.contains(".corrupt-") } == quarantined)
    }

    @Test(
        "Corrupt content found by a write (a sign-in): cacheCorrupt with the correlation id, the file moved aside; the sign-in's tokens are not stored",
        arguments: [corrupt[0], corrupt[1]])
    func corruptFoundByWrite(_ content: Content) async throws {
        let harness = try StorageFaultHarness()
        defer { harness.scratch.remove() }
        try harness.seed()
        let bad = content.bytes(try #require(harness.bytes()))
        try Self.replace(harness.path, with: bad)
        let correlationID = UUID()
        let error = await expectMSALError { try await Self.deviceCodeSignIn(harness, correlationID: correlationID) }
        #expect(error?.internalCode == .cacheCorrupt)
        #expect(error?.correlationID == correlationID)
        let quarantined = harness.names().filter { $0.hasPrefix("token_cache.json.corrupt-") }
        try #require(quarantined.count == 1)
        #expect(FileManager.default.contents(atPath: harness.scratch.file(quarantined[0])).map { [UInt8]($0) } == bad)
        #expect(harness.bytes() == nil)
        #expect(try harness.app.allAccounts().isEmpty)
    }

    @Test(
        "Empty content is an empty cache, as in the other MSAL libraries: no error, nothing moved aside, a sign-in writes the file",
        arguments: empty)
    func emptyContent(_ content: Content) async throws {
        let harness = try StorageFaultHarness()
        defer { harness.scratch.remove() }
        try Self.replace(harness.path, with: content.bytes([]))
        #expect(try harness.app.allAccounts().isEmpty)
        let result = try await Self.deviceCodeSignIn(harness)
        #expect(try harness.app.allAccounts().compactMap(\.identifier) == [result.account.identifier])
        #expect(harness.names() == ["token_cache.json", "token_cache.json.lock"])
    }

    struct Unsafe: Sendable, CustomTestStringConvertible {
        var name: String
        /// Puts the unsafe thing at `path` (a valid cache document is `valid`); returns a check that it is untouched.
        var make: @Sendable (_ path: String, _ scratch: ScratchDirectory, _ valid: [UInt8]) throws -> @Sendable () -> Bool
        var testDescription: String { name }
    }

    static let unsafe: [Unsafe] = [
        Unsafe(name: "a directory") { path, _, _ in
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            try RawFile.write(path + "/inside", "keep")
            return { RawFile.status(path)?.isDirectory == true && RawFile.text(path + "/inside") == "keep" }
        },
        Unsafe(name: "a symlink to a valid cache elsewhere") { path, scratch, valid in
            let target = scratch.file("elsewhere.json")
            try replace(target, with: valid)
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
            return {
                RawFile.isSymlink(path) && (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) == target
                    && FileManager.default.contents(atPath: target).map { [UInt8]($0) } == valid
            }
        },
        Unsafe(name: "a dangling symlink") { path, scratch, _ in
            let target = scratch.file("nowhere.json")
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
            return { RawFile.isSymlink(path) && RawFile.status(target) == nil }
        },
        Unsafe(name: "a file readable by others (0644)") { path, _, valid in
            try replace(path, with: valid, mode: 0o644)
            return { RawFile.mode(path) == 0o644 && FileManager.default.contents(atPath: path).map { [UInt8]($0) } == valid }
        },
        Unsafe(name: "a file with a second hard link") { path, scratch, valid in
            try replace(path, with: valid)
            let other = scratch.file("other-link.json")
            guard link(path, other) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno)!) }
            return { RawFile.status(path)?.st_nlink == 2 && FileManager.default.contents(atPath: other).map { [UInt8]($0) } == valid }
        },
    ]

    @Test(
        "Something other than a plain file of this user at the cache path: cacheUnsafeFile on read and write, with the correlation id; nothing is followed, moved or changed",
        arguments: unsafe)
    func unsafePath(_ unsafe: Unsafe) async throws {
        let harness = try StorageFaultHarness()
        defer { harness.scratch.remove() }
        try harness.seed()
        let parameters = try harness.silentParameters(forceRefresh: false)
        let untouched = try unsafe.make(harness.path, harness.scratch, try #require(harness.bytes()))
        let namesBefore = harness.names()

        let silent = await expectMSALError { try await harness.app.acquireTokenSilent(with: parameters) }
        #expect(silent?.internalCode == .cacheUnsafeFile, "\(String(describing: silent))")
        #expect(silent?.correlationID == parameters.correlationId)
        #expect(silent?.message.contains(harness.path) == true)
        expectMSALError(.cacheUnsafeFile, mentioning: [harness.path]) { _ = try harness.app.allAccounts() }
        let correlationID = UUID()
        let write = await expectMSALError { try await Self.deviceCodeSignIn(harness, correlationID: correlationID) }
        #expect(write?.internalCode == .cacheUnsafeFile)
        #expect(write?.correlationID == correlationID)

        #expect(untouched())
        #expect(harness.names() == namesBefore, "nothing created, moved or removed")
    }

    @Test("A valid document with members swift-msal does not know (another MSAL's): read as it is, and kept through a write")
    func unknownMembersKept() async throws {
        let harness = try StorageFaultHarness()
        defer { harness.scratch.remove() }
        try harness.seed()
        let seeded = try #require(harness.bytes())
        var object = try #require(try JSONSerialization.jsonObject(with: Data(seeded)) as? [String: Any])
        object["FutureSection"] = ["key-1": ["secret_sauce": "42", "nested": ["a": [1, 2]]]]
        var accounts = try #require(object["Account"] as? [String: [String: Any]])
        let key = try #require(accounts.keys.first)
        accounts[key]?["x_vendor_field"] = "kept"
        object["Account"] = accounts
        try Self.replace(harness.path, with: [UInt8](try JSONSerialization.data(withJSONObject: object)))

        #expect(try harness.app.allAccounts().compactMap(\.identifier) == [TestAccount.abe.home])
        _ = try await Self.deviceCodeSignIn(harness)
        let written = try #require(harness.bytes())
        let after = try #require(try JSONSerialization.jsonObject(with: Data(written)) as? [String: Any])
        let future = try #require(after["FutureSection"] as? [String: [String: Any]])
        #expect(future["key-1"]?["secret_sauce"] as? String == "42")
        #expect((future["key-1"]?["nested"] as? [String: [Int]])?["a"] == [1, 2])
        #expect((after["Account"] as? [String: [String: Any]])?[key]?["x_vendor_field"] as? String == "kept")
        #expect((after["Account"] as? [String: Any])?.count == 2)
        #expect(harness.names() == ["token_cache.json", "token_cache.json.lock"])
    }
}
