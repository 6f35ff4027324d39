import Foundation

extension TokenClient {
    /// Sends a token request. With a DPoP key (``TokenPresentation/dpop(key:)``), every attempt
    /// carries a new proof for the request (`htm`, `htu`, `iat`, a fresh `jti`) with the server's last
    /// `DPoP-Nonce`; an answer of `use_dpop_nonce` with a nonce is tried once more with it (RFC 9449
    /// §8), and any nonce the server sends is remembered for its next proof.
    ///
    /// A request over mutual TLS (``tlsCertificate(_:)``) presents the certificate in the TLS handshake.
    package func sendTokenRequest(
        _ request: MSALHTTPRequest, presentation: TokenPresentation?, correlationID: UUID
    ) async throws -> MSALHTTPResponse {
        var request = request
        if request.clientCertificate == nil { request.clientCertificate = tlsCertificate(presentation) }
        guard let key = presentation?.dpopKey else { return try await pipeline.send(request, correlationID: correlationID) }
        let origin = DPoPNonces.origin(request.url)
        let nonces = dpopNonces
        var answeredNonce = false
        while true {
            let response = try await pipeline.send(request, correlationID: correlationID) { [self] attempt throws(MSALFailure) in
                let proof = try DPoPProof.make(
                    key: key, method: attempt.method.rawValue, url: attempt.url, nonce: nonces.nonce(for: origin), issuedAt: nowSeconds)
                attempt.headers.replaceOrAdd(name: "DPoP", value: proof)
            }
            let given = response.headers["DPoP-Nonce"]
            if let given { nonces.remember(given, for: origin) }
            if !answeredNonce, response.statusCode == 400 || response.statusCode == 401, let given, DPoPNonces.isValid(given),
                OAuthErrorResponse(body: response.body).error == "use_dpop_nonce"
            {
                answeredNonce = true
                logger.info(
                    "Token request: the server asked for a DPoP nonce; sending the proof again with it", correlationID: correlationID)
                continue
            }
            return response
        }
    }
}
