import Foundation

/// What a protected API answers when a request's access token is refused (RFC 6750 §3): the HTTP
/// status and the `WWW-Authenticate` header.
///
/// - No bearer token: 401 with `Bearer realm="…"` and no error code (§3.1).
/// - An invalid token (signature, key, issuer, audience, expiry, malformed): 401 with
///   `error="invalid_token"`.
/// - A valid token without the required permission: 403 with `error="insufficient_scope"` and the
///   required `scope`.
/// - A DPoP request (RFC 9449 §7.1) whose proof is missing or fails: 401 with
///   `DPoP error="invalid_dpop_proof"`; without the nonce the API requires: 401 with
///   `DPoP error="use_dpop_nonce"` and the nonce to send in ``dpopNonce`` (the `DPoP-Nonce` header).
/// - Anything else (the keys could not be fetched, a network failure): 503 and no challenge; the
///   token was not judged.
public struct MSALBearerChallenge: Sendable, Equatable {
    /// The HTTP status to answer with.
    public var status: Int
    /// The RFC 6750 error code, if any: `invalid_token` or `insufficient_scope`.
    public var error: String?
    /// The `WWW-Authenticate` header value, or `nil` when none applies (status 503).
    public var headerValue: String?
    /// The `DPoP-Nonce` header to send with a `use_dpop_nonce` answer; `nil` otherwise.
    public var dpopNonce: String?

    /// The answer for a failure of ``MSALAccessTokenValidator`` or of `AccessToken.require(scopes:roles:)`.
    ///
    /// - Parameters:
    ///   - failure: the error thrown.
    ///   - realm: the `realm` attribute, if the API names one.
    public init(for failure: any Error, realm: String? = nil) {
        var attributes: [(String, String)] = []
        if let realm { attributes.append(("realm", realm)) }
        guard let error = failure as? MSALFailure, let code = error.internalCode else {
            self.init(status: 503, error: nil, headerValue: nil)
            return
        }
        switch code {
        case .accessTokenMissing:
            self.init(status: 401, error: nil, headerValue: Self.header(attributes))
        case .dpopProofInvalid:
            attributes += [
                ("algs", Self.dpopAlgorithms), ("error", "invalid_dpop_proof"), ("error_description", "The DPoP proof is not valid"),
            ]
            self.init(status: 401, error: "invalid_dpop_proof", headerValue: Self.header(attributes, scheme: "DPoP"))
        case .dpopNonceRequired:
            attributes += [
                ("algs", Self.dpopAlgorithms), ("error", "use_dpop_nonce"),
                ("error_description", "The DPoP proof must carry the nonce given"),
            ]
            self.init(status: 401, error: "use_dpop_nonce", headerValue: Self.header(attributes, scheme: "DPoP"))
            dpopNonce = error.httpHeaders?["DPoP-Nonce"]
        case .signedRequestInvalid:
            attributes += [("error", "invalid_token"), ("error_description", "The signed HTTP request is not valid")]
            self.init(status: 401, error: "invalid_token", headerValue: Self.header(attributes, scheme: "PoP"))
        case .accessTokenSchemeMismatch, .certificateBindingMismatch:
            attributes.append(("error", "invalid_token"))
            attributes.append(("error_description", "The access token is not valid as presented"))
            self.init(status: 401, error: "invalid_token", headerValue: Self.header(attributes))
        case .insufficientPermission:
            attributes.append(("error", "insufficient_scope"))
            attributes.append(("error_description", "The access token does not grant the required permission"))
            if let scopes = error.declinedScopes, !scopes.isEmpty { attributes.append(("scope", scopes.joined(separator: " "))) }
            self.init(status: 403, error: "insufficient_scope", headerValue: Self.header(attributes))
        default:
            guard code.rawValue <= -46000, code.rawValue > -47000 else {
                self.init(status: 503, error: nil, headerValue: nil)
                return
            }
            // A short, fixed reason: the detailed message (expected issuer, audiences) stays in the
            // API's own logs, not in the answer to whoever sent the token.
            attributes.append(("error", "invalid_token"))
            attributes.append(
                ("error_description", code == .idTokenExpired ? "The access token has expired" : "The access token is not valid"))
            self.init(status: 401, error: "invalid_token", headerValue: Self.header(attributes))
        }
    }

    /// The DPoP proof algorithms a validator accepts (RFC 9449 §7.1's `algs`).
    private static let dpopAlgorithms = "ES256 ES384 RS256 RS384 RS512 PS256 PS384 PS512"

    /// Creates a challenge.
    public init(status: Int, error: String?, headerValue: String?, dpopNonce: String? = nil) {
        self.status = status
        self.error = error
        self.headerValue = headerValue
        self.dpopNonce = dpopNonce
    }

    /// `scheme` and the attributes as RFC 6750 §3 writes them; a value keeps only printable ASCII
    /// other than `"` and `\` (a realm or scope name from the app cannot break the header).
    private static func header(_ attributes: [(String, String)], scheme: String = "Bearer") -> String {
        guard !attributes.isEmpty else { return scheme }
        return scheme + " "
            + attributes.map { name, value in
                let kept = value.unicodeScalars.filter { (0x20...0x7E).contains($0.value) && $0 != "\"" && $0 != "\\" }
                return "\(name)=\"\(String(String.UnicodeScalarView(kept)))\""
            }.joined(separator: ", ")
    }
}
