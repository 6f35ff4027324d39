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
        if let dot = identifier.lastIndex(of: "."), dot != identifier.startIndex, identifier.index(after: dot) != identifier.endIndex {
            objectId = String(identifier[..<dot])
            tenantId = String(identifier[identifier.index(after: dot)...])
        } else {
            objectId = nil
            tenantId = nil
        }
    }
}
