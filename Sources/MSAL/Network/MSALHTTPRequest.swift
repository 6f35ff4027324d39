import Foundation

/// An HTTP request swift-msal sends to an identity provider.
public struct MSALHTTPRequest: Sendable, Hashable {
    /// The HTTP method.
    public struct Method: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The method name, such as `GET`.
        public var rawValue: String
        /// Creates a method.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// `GET`.
        public static let get = Method(rawValue: "GET")
        /// `POST`.
        public static let post = Method(rawValue: "POST")
        /// The method name.
        public var description: String { rawValue }
    }

    /// The method.
    public var method: Method
    /// The absolute URL.
    public var url: URL
    /// The header fields.
    public var headers: MSALHTTPHeaders
    /// The body, for `POST`.
    public var body: [UInt8]?
    /// Whether sending the request twice is harmless. Only idempotent requests are retried;
    /// `GET` is idempotent, a token request never is (a code can be redeemed once).
    public var isIdempotent: Bool
    /// Whether the pipeline adds Microsoft's telemetry and correlation headers (`x-client-*`,
    /// `x-ms-lib-capability`, `client-request-id`): only for Microsoft's identity platform, never
    /// for a generic OpenID Connect provider.
    package var sendsMicrosoftHeaders = true
    /// The certificate to present for TLS client authentication (mutual TLS, RFC 8705), or `nil`.
    ///
    /// swift-msal sets it for a confidential client that authenticates with its certificate in
    /// TLS (``MSALClientCredential/tlsClientCertificate(_:)``), and for Microsoft Entra's mTLS
    /// proof of possession (``MSALAuthenticationSchemeMutualTLSPop``) with any certificate
    /// credential. A request with one that is not `https` is refused with
    /// ``MSALInternalError/tlsFailure`` before any transport sees it. A transport must present it in the
    /// TLS handshake, and keep connections made with it apart from the others; one that cannot
    /// must throw ``MSALFailure`` with internal code ``MSALInternalError/tlsFailure`` instead of
    /// sending the request without it. ``MSALCurlTransport`` and `MSALAsyncHTTPClientTransport`
    /// present it; `MSALURLSessionTransport` refuses such requests.
    public var clientCertificate: MSALClientCertificate?

    /// Creates a request. `isIdempotent` defaults to `true` for `GET` only.
    public init(method: Method, url: URL, headers: MSALHTTPHeaders = [:], body: [UInt8]? = nil, isIdempotent: Bool? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.isIdempotent = isIdempotent ?? (method == .get)
    }

    /// A `POST` of `application/x-www-form-urlencoded` parameters, in the given order, UTF-8 and
    /// percent-encoded. The media type is sent without a `charset` parameter, which it does not
    /// define: strict servers (oauthlib, under Django OAuth Toolkit's device authorization
    /// endpoint) refuse `application/x-www-form-urlencoded;charset=utf-8` with `invalid_request`.
    public static func form(url: URL, parameters: [(String, String)], headers: MSALHTTPHeaders = [:]) -> MSALHTTPRequest {
        var headers = headers
        headers.replaceOrAdd(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let body = MSALFormEncoding.encode(parameters)
        return MSALHTTPRequest(method: .post, url: url, headers: headers, body: Array(body.utf8), isIdempotent: false)
    }

    /// The body decoded as form parameters, or an empty list when it is not a form.
    public var formParameters: [(String, String)] {
        guard let body, let contentType = headers["Content-Type"],
            contentType.lowercased().hasPrefix("application/x-www-form-urlencoded")
        else { return [] }
        return MSALFormEncoding.decode(String(decoding: body, as: UTF8.self))
    }

    /// What every transport checks before anything is sent; returns the host, for messages.
    ///
    /// - Throws: ``MSALInternalError/networkFailure`` when a header field's name or value holds a CR,
    ///   LF or NUL (written as it is, it would end the field early and inject whatever follows);
    ///   ``MSALInternalError/bodyTooLarge`` when the body is over `limits.maximumRequestBodySize`.
    package func checkBeforeSending(limits: MSALHTTPLimits) throws -> String {
        let host = url.host ?? url.absoluteString
        for field in headers where (field.name + field.value).utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) {
            throw MSALFailure(
                .internal, internalCode: .networkFailure,
                message:
                    "The request to \(host) was not sent: its header field \(OAuthErrorResponse.sanitized(field.name, limit: 100)) contains a line break or NUL"
            )
        }
        if clientCertificate != nil, url.scheme?.lowercased() != "https" {
            throw MSALFailure(
                .internal, internalCode: .tlsFailure,
                message: "The request to \(host) needs a client certificate (mutual TLS) and is not https; it was not sent")
        }
        if let body, body.count > limits.maximumRequestBodySize {
            throw MSALFailure(
                .internal, internalCode: .bodyTooLarge,
                message:
                    "The request body to \(host) has \(body.count) bytes, over the \(limits.maximumRequestBodySize)-byte limit; it was not sent"
            )
        }
        return host
    }

    /// Requests are equal when method, URL, headers, body, idempotence and client certificate
    /// (the same object) are.
    public static func == (lhs: MSALHTTPRequest, rhs: MSALHTTPRequest) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.headers == rhs.headers && lhs.body == rhs.body
            && lhs.isIdempotent == rhs.isIdempotent && lhs.clientCertificate === rhs.clientCertificate
    }

    /// Hashes method, URL and body.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(url)
        hasher.combine(body)
    }
}
