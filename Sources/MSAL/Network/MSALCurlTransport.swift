import CCurl
import Foundation
import MSALSupport

/// The default ``MSALHTTPTransport``: libcurl, called directly, with TLS through the system OpenSSL.
///
/// - Redirects are never followed; a 3xx response is returned as it is. Only `http` and `https` URLs
///   are fetched (plain HTTP is allowed by swift-msal only for loopback, above the transport).
/// - TLS 1.2 or later, with the peer's certificate chain and host name verified against the system
///   trust store. No cookies, no cache, no credentials of any kind are kept or sent.
/// - ``MSALHTTPLimits/connectTimeout`` bounds the wait for the connection and for every next byte,
///   ``MSALHTTPLimits/totalTimeout`` the whole exchange (a server that trickles bytes still times
///   out), both to the millisecond.
/// - The response body is capped at ``MSALHTTPLimits/maximumResponseBodySize`` while it streams in (and
///   at once when `Content-Length` declares more), the response head at 256 KiB, the request body at
///   ``MSALHTTPLimits/maximumRequestBodySize`` before anything is sent.
/// - A request body is never sent twice. When a reused keep-alive connection closes before any
///   answer, libcurl resends the request on a new connection by itself; a request with a body fails
///   then with ``MSALInternalError/networkFailure`` instead (the pipeline applies its retry rule), and
///   a `GET` may be resent once, as RFC 9110 §9.2.2 allows for idempotent requests.
/// - Trailer fields after a chunked body are ignored, and 1xx interim responses skipped.
/// - Errors are ``MSALFailure``s with internal code ``MSALInternalError/networkTimeout``,
///   ``MSALInternalError/tlsFailure``, ``MSALInternalError/bodyTooLarge`` or
///   ``MSALInternalError/networkFailure`` (libcurl's result and message kept as
///   ``MSALFailure/underlyingError``). Canceling the calling task abandons the transfer at once and
///   throws `CancellationError`.
///
/// One instance runs any number of concurrent requests on one thread of its own and keeps their
/// connections for reuse (HTTP/2 where the server offers it); share it. Releasing the transport ends
/// the thread and closes the connections.
///
/// A request's ``MSALHTTPRequest/clientCertificate`` is presented in the TLS handshake (mutual
/// TLS); connections made with a client certificate are reused only by requests with the same one.
///
/// libcurl honours the usual proxy environment variables (`https_proxy`, `no_proxy`, …).
public final class MSALCurlTransport: MSALHTTPTransport {
    /// The thread and connection cache, started by the first request (which also loads libcurl
    /// into the process, see ``LibCurl``): a transport that never sends anything costs nothing.
    private let driver = Mutex<CurlDriver?>(nil)
    /// The PEM file of the only certificates trusted as roots, or `nil` for the system trust store.
    public let trustedCertificatesFile: String?

    /// Creates a transport with its own thread and connection cache, trusting the system's trust store.
    public init() {
        self.trustedCertificatesFile = nil
    }

    /// Creates a transport that trusts only the certificates in `trustedCertificatesFile` (PEM), in
    /// place of the system's trust store: for an identity provider under a private certificate
    /// authority, or a test server's own certificate.
    public init(trustedCertificatesFile: String) {
        self.trustedCertificatesFile = trustedCertificatesFile
    }

    deinit {
        driver.withLock { $0?.stop() }
    }

    /// The driver, started on first use; a typed error when libcurl cannot be loaded or set up.
    private func startedDriver(host: String) throws -> CurlDriver {
        try driver.withLock { driver in
            if let driver { return driver }
            let reason: String
            switch LibCurl.shared {
            case .success(let curl):
                if let started = CurlDriver(name: "MSALCurlTransport", curl: curl) {
                    driver = started
                    return started
                }
                reason = "libcurl could not be initialized"
            case .failure(let failure):
                reason = failure.reason
            }
            throw MSALFailure(.internal, internalCode: .networkFailure, message: "\(reason); the request to \(host) was not sent")
        }
    }

    /// Sends `request` once and returns whatever HTTP response arrives.
    public func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse {
        try Task.checkCancellation()
        let host = try request.checkBeforeSending(limits: limits)
        let driver = try startedDriver(host: host)
        let exchange = TransportExchange(limits: limits, host: host)
        let transfer = try CurlTransfer(
            id: driver.makeID(), curl: driver.curl, request: request, limits: limits, exchange: exchange,
            trustedCertificatesFile: trustedCertificatesFile)
        let id = transfer.id
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<MSALHTTPResponse, any Error>) in
                if exchange.install({ continuation.resume(with: $0) }) {
                    driver.start(transfer)
                }
            }
        } onCancel: {
            if exchange.finish(.failure(CancellationError())) {
                driver.cancel(id)
            }
        }
    }

    /// Ends the exchange of a transfer libcurl finished with `code`: the reason a callback stopped
    /// it, libcurl's error, or the response (the exchange records only a final head; none means no
    /// response at all).
    static func finish(_ transfer: CurlTransfer, code: CURLcode) {
        if let reason = transfer.abortReason {
            transfer.exchange.finish(.failure(reason))
        } else if code != CURLE_OK {
            transfer.exchange.finish(
                .failure(
                    error(
                        for: code, text: transfer.easy.curl.describe(code), message: transfer.easy.errorMessage,
                        host: transfer.exchange.host)))
        } else {
            transfer.exchange.finishWithCollectedResponse()
        }
    }

    /// Whether libcurl's message for a failed read or write is OpenSSL's report of a TLS alert
    /// (`… SSL routines::tlsv13 alert certificate required`), not a plain socket error.
    private static func isTLSAlert(_ message: String) -> Bool {
        message.contains("SSL routines") && message.contains("alert")
    }

    /// Maps a libcurl result to an ``MSALFailure``.
    static func error(for code: CURLcode, text: String, message: String, host: String) -> MSALFailure {
        let detail = message.isEmpty ? text : "\(text) (\(message))"
        let internalCode: MSALInternalError
        let what: String
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            (internalCode, what) = (.networkTimeout, "timed out")
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
            CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE, CURLE_SSL_SHUTDOWN_FAILED, CURLE_USE_SSL_FAILED,
            CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_CLIENTCERT:
            (internalCode, what) = (.tlsFailure, "failed to establish a secure connection")
        case CURLE_RECV_ERROR where isTLSAlert(message), CURLE_SEND_ERROR where isTLSAlert(message):
            // A TLS alert after the handshake: under TLS 1.3 a server that refuses the client's
            // certificate (or its absence) says so on the first read, not in the handshake.
            (internalCode, what) = (.tlsFailure, "failed: the server ended the secure connection")
        case CURLE_SEND_FAIL_REWIND:
            // libcurl wanted to resend the request after a reused connection closed (see CurlTransfer).
            (internalCode, what) = (.networkFailure, "failed: the connection closed before any response; the request was not sent again")
        case CURLE_GOT_NOTHING:
            (internalCode, what) = (.networkFailure, "failed: the server closed the connection without a response")
        default:
            (internalCode, what) = (.networkFailure, "failed")
        }
        return MSALFailure(
            .internal, internalCode: internalCode,
            message: "The request to \(host) \(what): \(OAuthErrorResponse.sanitized(detail, limit: 300))",
            underlyingError: MSALSendableErrorDescription(domain: "libcurl", code: Int(code.rawValue), description: detail))
    }
}
