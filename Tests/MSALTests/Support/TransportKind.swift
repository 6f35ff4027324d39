import MSALURLSession
import Testing

@testable import MSAL

/// The HTTP transports swift-msal ships, for tests that run against each of them.
enum TransportKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// ``MSALCurlTransport``, the default.
    case curl
    /// ``MSALURLSessionTransport``.
    case urlSession

    /// A new transport of this kind.
    func make() -> any MSALHTTPTransport {
        switch self {
        case .curl: MSALCurlTransport()
        case .urlSession: MSALURLSessionTransport()
        }
    }

    var testDescription: String {
        switch self {
        case .curl: "MSALCurlTransport"
        case .urlSession: "MSALURLSessionTransport"
        }
    }
}
