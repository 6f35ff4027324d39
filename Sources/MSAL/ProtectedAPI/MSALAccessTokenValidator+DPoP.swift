import Foundation
import MSALJOSE

extension MSALAccessTokenValidator {
    /// Validates a request that may present a DPoP-bound access token (RFC 9449 §7), or MSAL's
    /// signed HTTP request: the `Authorization` header (`DPoP <token>`, `PoP <signed request>` or
    /// `Bearer <token>`) with the request's `DPoP` header, method and URL.
    ///
    /// - `PoP`: MSAL's proof of possession for Microsoft Entra
    ///   (``validate(signedHTTPRequest:httpMethod:requestURL:correlationID:)``); `dpopProof` is not read.
    /// - `Bearer`: as ``validate(authorizationHeader:correlationID:)`` — a sender-constrained
    ///   token is refused.
    /// - `DPoP`: the token is validated as a bearer token is (signature, `iss`, `aud`, lifetime),
    ///   must be bound to a DPoP key (`cnf.jkt`), and the proof must pass RFC 9449 §4.3's checks:
    ///   type `dpop+jwt`, an allow-listed asymmetric algorithm, a signature by the public key it
    ///   carries — the key the token is bound to —, `htm` and `htu` of this request, `iat` within
    ///   ``MSALDPoPValidationOptions/proofLifetime``, `ath` of this token, the nonce the options
    ///   require, and a `jti` not accepted before.
    ///
    /// - Parameters:
    ///   - authorizationHeader: The request's `Authorization` header.
    ///   - dpopProof: The request's `DPoP` header; `nil` when it has none (a request with several
    ///     must be refused by the caller, as RFC 9449 §4.3 asks).
    ///   - httpMethod: The request's method, as received (`GET`).
    ///   - requestURL: The URL the client sent the request to — scheme, host, port and path as the
    ///     client saw them (behind a proxy, the public URL); the query is ignored.
    ///   - correlationID: The id of the request, carried by any error; `nil`: a new random one.
    /// - Returns: The validated token.
    /// - Throws: ``MSALFailure``: ``MSALInternalError/accessTokenMissing`` without a token,
    ///   ``MSALInternalError/accessTokenSchemeMismatch`` for a bound token presented as a bearer token
    ///   or an unbound one presented as DPoP, ``MSALInternalError/dpopProofInvalid`` for a missing or
    ///   failing proof, ``MSALInternalError/dpopNonceRequired`` for a proof without the current
    ///   nonce; otherwise as ``validate(_:correlationID:)``. ``MSALBearerChallenge`` turns each into
    ///   the answer to send.
    public func validate(
        authorizationHeader: String?, dpopProof: String?, httpMethod: String, requestURL: URL, correlationID: UUID? = nil
    ) async throws -> AccessToken {
        let correlationID = correlationID ?? correlationIDs.make()
        if let (scheme, signedRequest) = Self.credentials(authorizationHeader), scheme.lowercased() == "pop" {
            return try await validate(
                signedHTTPRequest: signedRequest, httpMethod: httpMethod, requestURL: requestURL, correlationID: correlationID)
        }
        guard let (scheme, token) = Self.credentials(authorizationHeader), scheme.lowercased() == "dpop" else {
            // Bearer, another scheme or none: the bearer path refuses what is not a bearer token.
            return try await validate(authorizationHeader: authorizationHeader, correlationID: correlationID)
        }
        guard Self.isCompactJWTText(token) else {
            throw MSALFailure(
                .internal, internalCode: .accessTokenMissing, message: "The DPoP token is not a compact JWT", correlationID: correlationID)
        }
        let now = resolver.store.clock.now()
        let validated = try await validateRemembering(token, correlationID: correlationID, now: now)
        guard let boundTo = validated.dpopKeyThumbprint else {
            throw MSALFailure(
                .internal, internalCode: .accessTokenSchemeMismatch,
                message: "The access token presented as DPoP is not bound to a DPoP key (no cnf.jkt)", correlationID: correlationID)
        }
        guard !validated.isBound(beyond: "jkt") else {
            throw MSALFailure(
                .internal, internalCode: .accessTokenSchemeMismatch,
                message: "The access token is bound to more than a DPoP key (cnf); a DPoP proof alone does not prove it",
                correlationID: correlationID)
        }
        guard let dpopProof, !dpopProof.isEmpty else { throw Self.invalidProof("The request has no DPoP proof", correlationID) }
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        let lifetime = Int64(dpop.proofLifetime.rounded(.up))
        let proof: DPoPProofVerifier.Proof
        do throws(JOSEError) {
            proof = try DPoPProofVerifier(maximumAge: lifetime, clockSkew: Int64(min(clockSkew, 60))).verify(
                dpopProof, method: httpMethod, targetURI: requestURL.absoluteString, accessToken: token, nonce: nil, now: seconds,
                keys: dpopProofKeys)
        } catch {
            throw Self.invalidProof("The DPoP proof is not valid: \(error.message)", correlationID)
        }
        guard proof.thumbprint == boundTo else {
            throw Self.invalidProof("The DPoP proof is signed by another key than the one the token is bound to", correlationID)
        }
        if let required = dpop.nonce?(), proof.nonce != required {
            var error = MSALFailure(
                .internal, internalCode: .dpopNonceRequired,
                message: proof.nonce == nil ? "The DPoP proof carries no nonce" : "The DPoP proof's nonce is not the current one",
                correlationID: correlationID)
            error.httpHeaders = ["DPoP-Nonce": required]
            throw error
        }
        // Remembered for as long as it could be accepted (its iat is at most a minute ahead), counted
        // from this server's clock so that the store forgets in the order it remembers.
        guard dpopProofIDs.accept(boundTo + " " + proof.jti, expiresAt: seconds + lifetime + 60, now: seconds) else {
            throw Self.invalidProof("The DPoP proof was used before (its jti)", correlationID)
        }
        return validated
    }

    /// `token` validated as a bearer token is, answered from the validated-token memory while its
    /// keys are warm: what the DPoP and the mutual-TLS entry points check before the binding.
    func validateRemembering(_ token: String, correlationID: UUID, now: Date) async throws -> AccessToken {
        let remembered = validatedTokens.remembered(token, now: now)
        if let remembered, let hit = answerWithWarmKeys(remembered) { return hit }
        return try await validate(token, remembered: remembered, correlationID: correlationID, now: now)
    }

    private static func invalidProof(_ message: String, _ correlationID: UUID) -> MSALFailure {
        MSALFailure(.internal, internalCode: .dpopProofInvalid, message: message, correlationID: correlationID)
    }

    /// The scheme and the credentials of an `Authorization` header value; `nil` without both.
    ///
    /// Read on the UTF-8 bytes: the scheme ends at the first space or tab, and the credentials are
    /// what follows without surrounding spaces and tabs (Foundation's trimming went through UTF-16
    /// and cost a DPoP request a fifth of its validation).
    static func credentials(_ header: String?) -> (scheme: Substring, token: String)? {
        guard var header else { return nil }
        let bounds: (scheme: Int, start: Int, end: Int)? = header.withUTF8 { bytes in
            func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
            var start = 0
            while start < bytes.count, isBlank(bytes[start]) { start += 1 }
            var schemeEnd = start
            while schemeEnd < bytes.count, !isBlank(bytes[schemeEnd]) { schemeEnd += 1 }
            var tokenStart = schemeEnd
            while tokenStart < bytes.count, isBlank(bytes[tokenStart]) { tokenStart += 1 }
            var tokenEnd = bytes.count
            while tokenEnd > tokenStart, isBlank(bytes[tokenEnd - 1]) { tokenEnd -= 1 }
            guard schemeEnd > start, tokenEnd > tokenStart, tokenEnd - tokenStart <= JWTVerifier.defaultMaximumTokenSize else {
                return nil
            }
            return (schemeEnd, tokenStart, tokenEnd)
        }
        guard let bounds else { return nil }
        let utf8 = header.utf8
        let schemeStart = utf8.firstIndex { $0 != 0x20 && $0 != 0x09 } ?? utf8.startIndex
        let scheme = Substring(utf8[schemeStart..<utf8.index(utf8.startIndex, offsetBy: bounds.scheme)])
        let token = String(
            Substring(utf8[utf8.index(utf8.startIndex, offsetBy: bounds.start)..<utf8.index(utf8.startIndex, offsetBy: bounds.end)]))
        return (scheme, token)
    }
}
