import AsyncHTTPClient
import Foundation
import MSAL
import MSALSupport
import NIOCore
import NIOHTTP1
import NIOSSL

/// An ``MSAL/MSALHTTPTransport`` over swift-server's AsyncHTTPClient, for services that already run one:
/// the SDK's requests share the service's event loops and, with ``init(client:)``, its connection pool.
///
/// It keeps every promise of ``MSAL/MSALCurlTransport``:
///
/// - Redirects are never followed; a 3xx response is returned as it is. A client that would follow
///   them is refused when the transport is created (``init(client:)``).
/// - ``MSAL/MSALHTTPLimits/connectTimeout`` bounds the wait for the connection and for every next
///   byte, ``MSAL/MSALHTTPLimits/totalTimeout`` the whole exchange (a server that trickles bytes
///   still times out), whatever timeouts the client itself was configured with.
/// - The response body is capped at ``MSAL/MSALHTTPLimits/maximumResponseBodySize`` while it streams
///   in (and at once when `Content-Length` declares more); the request body at
///   ``MSAL/MSALHTTPLimits/maximumRequestBodySize`` before anything is sent. A header field holding a
///   line break is refused before anything is sent.
/// - A request is sent once; AsyncHTTPClient does not resend a request whose connection closed.
/// - Errors are ``MSAL/MSALFailure``s with internal code ``MSAL/MSALInternalError/networkTimeout``,
///   ``MSAL/MSALInternalError/tlsFailure``, ``MSAL/MSALInternalError/bodyTooLarge`` or
///   ``MSAL/MSALInternalError/networkFailure`` (AsyncHTTPClient's error kept as
///   ``MSAL/MSALFailure/underlyingError``). Canceling the calling task cancels the request and throws
///   `CancellationError`.
///
/// A request's ``MSAL/MSALHTTPRequest/clientCertificate`` (mutual TLS) is presented through a TLS
/// configuration of that request: ``clientCertificateTLSConfiguration`` with the certificate chain
/// and key added. AsyncHTTPClient pools connections by TLS configuration, so those connections
/// serve only requests with the same certificate.
///
/// One instance serves any number of concurrent requests; share it.
///
/// ```swift
/// let httpClient = HTTPClient(configuration: .init(redirectConfiguration: .disallow))
/// var config = MSALConfidentialClientApplicationConfig(
///     clientId: clientID, clientCredential: credential, authority: authority)
/// config.transport = try MSALAsyncHTTPClientTransport(client: httpClient)
/// ```
public final class MSALAsyncHTTPClientTransport: MSALHTTPTransport {
    /// The client requests go through.
    public let client: HTTPClient
    /// Whether the transport created `client` and shuts it down.
    private let ownsClient: Bool
    /// The TLS configuration of a request that presents a client certificate, to which the
    /// certificate chain and key are added. AsyncHTTPClient does not tell a transport its client's
    /// own configuration, and a request's configuration replaces it: the default is SwiftNIO SSL's
    /// client configuration (the system's trust store, TLS 1.2 or later). Set trust roots here when
    /// the identity provider's certificate is under a private authority.
    public var clientCertificateTLSConfiguration: TLSConfiguration {
        get { tlsBase.withLock { $0 } }
        set { tlsBase.withLock { $0 = newValue } }
    }
    private let tlsBase = Mutex(TLSConfiguration.makeClientConfiguration())

    /// Creates a transport over `client`, the service's own `HTTPClient`, sharing its event loops and
    /// connection pool. The service keeps owning it and shuts it down.
    ///
    /// The client must not follow redirects: create it with
    /// `HTTPClient.Configuration(redirectConfiguration: .disallow)`. A followed redirect would send a
    /// request, and the headers the SDK puts on it (a managed identity's secret header, for one), to
    /// wherever the `Location` points. AsyncHTTPClient's `HTTPClient.shared` follows redirects and is
    /// refused.
    ///
    /// - Important: AsyncHTTPClient 1.37 traps the process on a response whose status line is below
    ///   100 followed by a body (`HTTP/1.1 000`), which only ``init(eventLoopGroup:)``'s client
    ///   guards against. On a service's own client, use it only with servers trusted not to send
    ///   one, as for any other request that client sends. Its connection retries (AsyncHTTPClient's
    ///   `retryConnectionEstablishment`, on by default) also turn a refused connection into a
    ///   ``MSAL/MSALInternalError/networkTimeout`` at the SDK's limit.
    ///
    /// - Throws: ``MSAL/MSALFailure`` with internal code ``MSAL/MSALInternalError/internalErrorInvalidParameter``
    ///   when the client follows redirects, or when its redirect setting cannot be read (an
    ///   AsyncHTTPClient version whose layout this check does not know: refused rather than trusted).
    public init(client: HTTPClient) throws(MSALFailure) {
        switch client.redirectPolicy {
        case .disallowed:
            break
        case .follows:
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message:
                    "This HTTPClient follows redirects; create it with HTTPClient.Configuration(redirectConfiguration: .disallow) to use it as swift-msal's transport"
            )
        case .unknown:
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message:
                    "Cannot tell whether this HTTPClient follows redirects (an AsyncHTTPClient version this check does not know); use MSALAsyncHTTPClientTransport(eventLoopGroup:) instead"
            )
        }
        self.client = client
        self.ownsClient = false
    }

    /// Creates a transport with a client of its own on `eventLoopGroup` (the service's event loops):
    /// redirects disallowed, HTTP/1.1, no decompression, no proxy, no tracing, the system's trust
    /// store, one connection attempt per request, and a guard against responses that would trap
    /// AsyncHTTPClient (a status line below 100). The transport shuts that client down when it is
    /// released.
    ///
    /// - Parameter eventLoopGroup: The event loops to run on; default, SwiftNIO's shared group.
    public init(eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup) {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, decompression: .disabled)
        configuration.tracing.tracer = nil
        // HTTP/1.1 only, where the guard below sits; token endpoints need nothing newer.
        configuration.httpVersion = .http1Only
        // A refused connection or a failed TLS handshake is an answer, not something to retry until
        // the deadline: the SDK's pipeline decides about retries.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.http1_1ConnectionDebugInitializer = ResponseHeadGuard.install(on:)
        self.client = HTTPClient(eventLoopGroup: eventLoopGroup, configuration: configuration)
        self.ownsClient = true
    }

    deinit {
        // The client stays alive until its shutdown completes (the shutdown holds it); no request
        // is in flight, since each one holds the transport.
        if ownsClient {
            client.shutdown { _ in }
        }
    }

    /// Sends `request` once and returns whatever HTTP response arrives.
    public func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse {
        try Task.checkCancellation()
        let host = try request.checkBeforeSending(limits: limits)
        let exchange = TransportExchange(limits: limits, host: host)
        let prepared: HTTPClient.Request
        do {
            var headers = HTTPHeaders()
            for field in request.headers {
                headers.add(name: field.name, value: field.value)
            }
            prepared = try HTTPClient.Request(
                url: request.url, method: HTTPMethod(rawValue: request.method.rawValue), headers: headers,
                body: request.body.map { .byteBuffer(ByteBuffer(bytes: $0)) },
                tlsConfiguration: try request.clientCertificate.map { try tlsConfiguration(presenting: $0, host: host) })
        } catch let error as MSALFailure {
            throw error
        } catch {
            throw Self.mapError(error, host: host)
        }
        // AsyncHTTPClient's delegate API runs on the connection's event loop from start to end, so a
        // request never waits for a thread of Swift's cooperative pool, even when an app keeps them
        // all busy; its own deadline, one second past the total limit, backs up the watchdog.
        let seconds = MSALHTTPLimits.boundedSeconds(limits.totalTimeout)
        let deadline = NIODeadline.now() + .milliseconds(Int64((seconds * 1000).rounded(.up)) + 1000)
        let task = client.execute(request: prepared, delegate: ExchangeDelegate(exchange: exchange), deadline: deadline)
        task.futureResult.whenFailure { error in
            exchange.finish(.failure(Self.mapError(error, host: host)))
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<MSALHTTPResponse, any Error>) in
                if exchange.install({ continuation.resume(with: $0) }) {
                    exchange.watchDeadlines { task.cancel() }
                }
            }
        } onCancel: {
            if exchange.finish(.failure(CancellationError())) { task.cancel() }
        }
    }
}
