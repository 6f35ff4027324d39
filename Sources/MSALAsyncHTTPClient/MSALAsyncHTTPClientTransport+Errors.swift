import AsyncHTTPClient
import MSAL
import NIOCore
import NIOSSL

extension MSALAsyncHTTPClientTransport {
    /// Maps an AsyncHTTPClient failure to an ``MSAL/MSALFailure`` (or `CancellationError` for a
    /// canceled request).
    static func mapError(_ error: any Error, host: String) -> any Error {
        if error is CancellationError || error is MSALFailure { return error }
        let internalCode: MSALInternalError
        let what: String
        if let clientError = error as? HTTPClientError {
            switch clientError {
            case .cancelled:
                return CancellationError()
            case .remoteConnectionClosed:
                // AsyncHTTPClient never resends: say so, as the other transports do.
                (internalCode, what) = (
                    .networkFailure, "failed: the connection closed before the response; the request was not sent again"
                )
            case .connectTimeout, .readTimeout, .writeTimeout, .deadlineExceeded, .tlsHandshakeTimeout,
                .getConnectionFromPoolTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
                (internalCode, what) = (.networkTimeout, "timed out")
            default:
                (internalCode, what) = (.networkFailure, "failed")
            }
        } else if error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError {
            (internalCode, what) = (.tlsFailure, "failed to establish a secure connection")
        } else if let channelError = error as? ChannelError, case .connectTimeout = channelError {
            (internalCode, what) = (.networkTimeout, "timed out")
        } else {
            (internalCode, what) = (.networkFailure, "failed")
        }
        let description = String(describing: error)
        return MSALFailure(
            .internal, internalCode: internalCode,
            message: "The request to \(host) \(what): \(OAuthErrorResponse.sanitized(description, limit: 300))",
            underlyingError: error)
    }
}
