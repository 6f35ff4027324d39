import Foundation
import MSALJOSE

extension MSALAccessTokenValidator {
    /// Validates MSAL's signed HTTP request (`Authorization: PoP <signed request>`, what
    /// ``MSALAuthenticationSchemePop`` results present): the access token it carries (`at`) is
    /// validated as a bearer token is (signature, `iss`, `aud`, lifetime) and must be bound to a key
    /// (`cnf.kid`, and to nothing else); the signed request must be signed by that key — the public
    /// key in its `cnf.jwk`, whose RFC 7638 thumbprint is the `kid` —, name this request's method
    /// (`m`), host (`u`) and path (`p`), be made within ``MSALDPoPValidationOptions/proofLifetime``
    /// (`ts`), carry a nonce, and not have been accepted before (the same signed request again is a
    /// replay; accepted ones are kept as DPoP proofs' `jti` are).
    ///
    /// ``validate(authorizationHeader:dpopProof:httpMethod:requestURL:correlationID:)`` calls it for
    /// a `PoP` header.
    ///
    /// - Parameters:
    ///   - signedHTTPRequest: The credentials of the `PoP` header: the signed request's compact JWS.
    ///   - httpMethod: The request's method, as received (`GET`).
    ///   - requestURL: The URL the client sent the request to, as the client saw it (behind a proxy,
    ///     the public URL): its host and port, and its path.
    ///   - correlationID: The id of the request, carried by any error; `nil`: a new random one.
    /// - Returns: The validated access token.
    /// - Throws: ``MSALFailure``: ``MSALInternalError/signedRequestInvalid`` for a signed request that
    ///   fails a check; ``MSALInternalError/accessTokenSchemeMismatch`` for an access token not bound
    ///   to a key by `cnf.kid` alone; otherwise as ``validate(_:correlationID:)`` for the access token.
    ///   ``MSALBearerChallenge`` turns each into the answer to send.
    public func validate(
        signedHTTPRequest: String, httpMethod: String, requestURL: URL, correlationID: UUID? = nil
    ) async throws
        -> AccessToken
    {
        let correlationID = correlationID ?? correlationIDs.make()
        func invalid(_ message: String) -> MSALFailure {
            MSALFailure(.internal, internalCode: .signedRequestInvalid, message: message, correlationID: correlationID)
        }
        guard Self.isCompactJWTText(signedHTTPRequest) else { throw invalid("The signed HTTP request is not a compact JWS") }
        let now = resolver.store.clock.now()
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        let lifetime = Int64(dpop.proofLifetime.rounded(.up))
        let components = URLComponents(url: requestURL, resolvingAgainstBaseURL: false)
        let host = components.flatMap(DPoPProof.hostAndPort) ?? ""
        let signed: SignedHTTPRequestVerifier.Request
        do throws(JOSEError) {
            signed = try SignedHTTPRequestVerifier(maximumAge: lifetime, clockSkew: Int64(min(clockSkew, 60))).verify(
                signedHTTPRequest, method: httpMethod, host: host, path: components?.percentEncodedPath ?? "", now: seconds)
        } catch {
            throw invalid("The signed HTTP request is not valid: \(error.message)")
        }
        guard Self.isCompactJWTText(signed.accessToken) else { throw invalid("The signed HTTP request's at is not a compact JWT") }
        let validated = try await validateRemembering(signed.accessToken, correlationID: correlationID, now: now)
        guard let boundTo = validated.jwt.claims.root["cnf"]?["kid"]?.string, validated.jwt.claims.root["cnf"]?["jkt"] == nil,
            validated.certificateThumbprint == nil
        else {
            throw MSALFailure(
                .internal, internalCode: .accessTokenSchemeMismatch,
                message: "The access token in the signed HTTP request is not bound to a key by cnf.kid", correlationID: correlationID)
        }
        guard signed.thumbprint == boundTo else {
            throw invalid("The signed HTTP request is signed by another key than the one the access token is bound to")
        }
        // The same signed request again is a replay. (Its nonce alone does not tell: MSAL signs a
        // resource's own nonce into every request while that nonce lasts.)
        let digest: [UInt8]
        do throws(JOSEError) {
            digest = try MessageDigest.sha256(Array(signedHTTPRequest.utf8))
        } catch {
            throw MSALFailure(error, correlationID: correlationID)
        }
        guard dpopProofIDs.accept("shr " + Base64URL.encode(digest), expiresAt: seconds + lifetime + 60, now: seconds) else {
            throw invalid("The signed HTTP request was used before")
        }
        return validated
    }
}
