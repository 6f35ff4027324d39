import Foundation

extension MSALResult {
    /// A DPoP proof (RFC 9449 §7) for one request to a resource with this result's DPoP token
    /// (``MSALAuthenticationSchemeDPoP``): send it as the request's `DPoP` header, with
    /// ``authorizationHeader`` as its `Authorization` header. Each proof is new (its own `jti`
    /// and `iat`) and names the token (`ath`), the method and the URL (`htu`: without query or
    /// fragment).
    ///
    /// When the resource answers 401 with a `DPoP` challenge of `use_dpop_nonce`
    /// (``dpopNonce(wwwAuthenticate:dpopNonce:)``), make a new proof with the nonce it gave and send
    /// the request again.
    ///
    /// - Parameters:
    ///   - httpMethod: The resource request's method.
    ///   - requestUrl: The resource request's URL: `https`, or `http`, with a host.
    ///   - nonce: The resource's last `DPoP-Nonce`, when it gave one.
    /// - Returns: The proof, a compact JWS of type `dpop+jwt`.
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/internalErrorInvalidParameter`` when this
    ///   result's token is not a DPoP token, the URL has no host or another scheme, or the nonce is
    ///   not one a proof may carry; ``MSALInternalError/internalErrorUnexpected`` when the signature
    ///   cannot be made.
    public func dpopProof(httpMethod: MSALHttpMethod, requestUrl: URL, nonce: String? = nil) throws -> String {
        guard let key = dpopKey else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "This result's token is a \(authenticationScheme) token, not a DPoP token: ask with MSALAuthenticationSchemeDPoP",
                correlationID: correlationId)
        }
        let scheme = requestUrl.scheme?.lowercased()
        guard scheme == "https" || scheme == "http", let host = requestUrl.host, !host.isEmpty else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "A DPoP proof needs the resource's https URL, with a host",
                correlationID: correlationId)
        }
        if let nonce, !DPoPNonces.isValid(nonce) {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "The DPoP nonce is not 1 to \(DPoPNonces.maximumLength) visible ASCII characters without quotes or backslashes",
                correlationID: correlationId)
        }
        do throws(MSALFailure) {
            return try DPoPProof.make(
                key: key, method: MSALParameterStringForHttpMethod(httpMethod), url: requestUrl, accessToken: boundAccessToken,
                nonce: nonce, issuedAt: Int64(Date().timeIntervalSince1970.rounded(.down)))
        } catch {
            throw error.correlated(correlationId)
        }
    }

    /// The nonce a resource asks the next DPoP proof to carry: the `DPoP-Nonce` header's value when
    /// the response's `WWW-Authenticate` is a `DPoP` challenge with `error="use_dpop_nonce"` (RFC 9449
    /// §9); `nil` for any other answer, or a nonce a proof may not carry.
    ///
    /// - Parameters:
    ///   - wwwAuthenticate: The response's `WWW-Authenticate` header.
    ///   - dpopNonce: The response's `DPoP-Nonce` header.
    public static func dpopNonce(wwwAuthenticate: String?, dpopNonce: String?) -> String? {
        guard let wwwAuthenticate, let dpopNonce, DPoPNonces.isValid(dpopNonce),
            DPoPChallenge.asksForNonce(wwwAuthenticate)
        else { return nil }
        return dpopNonce
    }
}
