/// The parts of an account's home account identifier (`uid.utid` from `client_info`).
public struct MSALAccountId: Sendable, Hashable {
    /// The whole identifier, `<objectId>.<tenantId>`.
    public let identifier: String
    /// The account's object id in its home tenant (`uid`); `nil` when the identifier has no `.`.
    public let objectId: String?
    /// The home tenant id (`utid`); `nil` when the identifier has no `.`.
    public let tenantId: String?

    /// Splits `identifier` at its last `.` (B2C object ids contain `-` and `_`, never `.`).
    public init(identifier: String) {
        self.identifier = identifier
        // On the UTF-8 bytes: `.` is ASCII, so no grapheme breaking runs and the parts are whole characters.
        var copy = identifier
        let dot: Int? = copy.withUTF8 { utf8 in
            var index = utf8.count - 1
            while index >= 0, utf8[index] != UInt8(ascii: ".") { index -= 1 }
            return index > 0 && index < utf8.count - 1 ? index : nil
        }
        if let dot {
            let utf8 = identifier.utf8
            let split = utf8.index(utf8.startIndex, offsetBy: dot)
            objectId = String(identifier[..<split])
            tenantId = String(identifier[utf8.index(after: split)...])
        } else {
            objectId = nil
            tenantId = nil
        }
    }
}
