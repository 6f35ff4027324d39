import Foundation

/// An HTTP response from an identity provider.
public struct MSALHTTPResponse: Sendable, Hashable {
    /// The status code.
    public var statusCode: Int
    /// The header fields.
    public var headers: MSALHTTPHeaders
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a response.
    public init(statusCode: Int, headers: MSALHTTPHeaders = [:], body: [UInt8] = []) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
    }

    /// Creates a response whose body is UTF-8 text.
    public init(statusCode: Int, headers: MSALHTTPHeaders = [:], text: String) {
        self.init(statusCode: statusCode, headers: headers, body: Array(text.utf8))
    }
}
