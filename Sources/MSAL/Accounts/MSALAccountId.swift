/// The parts of an account's home account identifier (`uid.utid` from `client_info`).
public struct MSALAccountId: Sendable, Hashable {
    /// The whole identifier, `<objectId>.<tenantId>`.
    public let identifier: String
    /// Where the last `.` is in the identifier's UTF-8, when it splits it into two non-empty parts.
    private let dot: Int?

    /// The account's object id in its home tenant (`uid`); `nil` when the identifier has no `.`.
    public var objectId: String? {
        dot.map { dot in String(decoding: identifier.utf8.prefix(dot), as: UTF8.self) }
    }

    /// The home tenant id (`utid`); `nil` when the identifier has no `.`.
    public var tenantId: String? {
        dot.map { dot in String(decoding: identifier.utf8.dropFirst(dot + 1), as: UTF8.self) }
    }

    /// Splits `identifier` at its last `.` (B2C object ids contain `-` and `_`, never `.`). The
    /// parts are made when asked for, so listing thousands of accounts makes no strings for them.
    public init(identifier: String) {
        self.identifier = identifier
        // On the UTF-8 bytes: `.` is ASCII, so no grapheme breaking runs and the parts are whole characters.
        var copy = identifier
        dot = copy.withUTF8 { utf8 in
            var index = utf8.count - 1
            while index >= 0, utf8[index] != UInt8(ascii: ".") { index -= 1 }
            return index > 0 && index < utf8.count - 1 ? index : nil
        }
    }

    /// Whether the home tenant id is `tenant` ignoring ASCII case, without making a string for it.
    func hasTenant(equalIgnoringASCIICaseTo tenant: String) -> Bool {
        guard let dot else { return false }
        var copy = identifier
        var other = tenant
        return copy.withUTF8 { utf8 in
            other.withUTF8 { CacheText.equalIgnoringASCIICase(UnsafeBufferPointer(rebasing: utf8[(dot + 1)...]), $0) }
        }
    }
}
