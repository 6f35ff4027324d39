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
        // On the UTF-8 view: `.` is ASCII, so its index is a valid `String` index (and no grapheme breaking runs).
        let utf8 = identifier.utf8
        if let dot = utf8.lastIndex(of: UInt8(ascii: ".")), dot != utf8.startIndex, utf8.index(after: dot) != utf8.endIndex {
            objectId = String(identifier[..<dot])
            tenantId = String(identifier[utf8.index(after: dot)...])
        } else {
            objectId = nil
            tenantId = nil
        }
    }
}
