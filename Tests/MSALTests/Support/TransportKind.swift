import MSALURLSession
import Testing

@testable import MSAL

#if canImport(MSALAsyncHTTPClient)
import AsyncHTTPClient
import MSALAsyncHTTPClient
#endif

/// The HTTP transports swift-msal ships, for tests that run against each of them.
enum TransportKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// ``MSALCurlTransport``, the default.
    case curl
    /// ``MSALURLSessionTransport``.
    case urlSession
    #if canImport(MSALAsyncHTTPClient)
    /// `MSALAsyncHTTPClientTransport` over a client of its own (the product is left out of the
    /// ThreadSanitizer build; see Package.swift).
    case asyncHTTPClient
    #endif

    /// A new transport of this kind.
    func make() -> any MSALHTTPTransport {
        switch self {
        case .curl: MSALCurlTransport()
        case .urlSession: MSALURLSessionTransport()
        #if canImport(MSALAsyncHTTPClient)
        case .asyncHTTPClient: MSALAsyncHTTPClientTransport()
        #endif
        }
    }

    /// Whether the transport itself resends a request without a body whose reused keep-alive
    /// connection closed before any answer (libcurl does, under both libcurl-based transports).
    var resendsBodilessRequestsOnStaleConnections: Bool {
        switch self {
        case .curl, .urlSession: true
        #if canImport(MSALAsyncHTTPClient)
        case .asyncHTTPClient: false
        #endif
        }
    }

    var testDescription: String {
        switch self {
        case .curl: "MSALCurlTransport"
        case .urlSession: "MSALURLSessionTransport"
        #if canImport(MSALAsyncHTTPClient)
        case .asyncHTTPClient: "MSALAsyncHTTPClientTransport"
        #endif
        }
    }
}
