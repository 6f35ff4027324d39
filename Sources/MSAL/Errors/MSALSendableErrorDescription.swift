/// A Foundation networking error reduced to `Sendable` values, kept as an ``MSALFailure``'s
/// ``MSALFailure/underlyingError`` when a transport fails.
public struct MSALSendableErrorDescription: Error, Sendable, CustomStringConvertible {
    /// The error domain, such as `NSURLErrorDomain`.
    public var domain: String
    /// The error code.
    public var code: Int
    /// The localized description.
    public var description: String

    /// Creates a description of an error.
    public init(domain: String, code: Int, description: String) {
        self.domain = domain
        self.code = code
        self.description = description
    }
}
