import Foundation
import MSALJOSE

extension MSALAccessTokenValidator {
    /// Validates a request received over a TLS connection that may carry a client certificate
    /// (mutual TLS, RFC 8705 §3): `Authorization: Bearer <token>`, or `mtls_pop <token>` as
    /// Microsoft Entra's mTLS proof-of-possession tokens are presented.
    ///
    /// The token is validated as a bearer token is (signature, `iss`, `aud`, lifetime). A token
    /// bound to a certificate (`cnf` `x5t#S256`) is accepted only when `clientCertificate` is that
    /// certificate; a token bound to a key (DPoP's `jkt`, MSAL's PoP) is refused here as anywhere
    /// a proof of its key is missing; an unbound token is accepted as `Bearer` and refused as
    /// `mtls_pop`.
    ///
    /// The certificate comes from the server's TLS stack: with SwiftNIO SSL (Hummingbird, Vapor),
    /// `try await channel.nioSSL_peerCertificate().get()?.toDERBytes()` on the request's channel. Behind a TLS
    /// terminator that verifies client certificates and forwards them, decode the forwarded
    /// certificate to DER; never trust such a header from a client directly.
    ///
    /// - Parameters:
    ///   - authorizationHeader: The request's `Authorization` header.
    ///   - clientCertificate: The DER encoding of the certificate the client presented in the TLS
    ///     handshake of this request's connection, as the TLS stack verified it; `nil` without one.
    ///   - correlationID: The id of the request, carried by any error; `nil`: a new random one.
    /// - Returns: The validated token.
    /// - Throws: ``MSALFailure``: ``MSALInternalError/accessTokenMissing`` without a token or with
    ///   another scheme; ``MSALInternalError/certificateBindingMismatch`` for a certificate-bound
    ///   token without its certificate; ``MSALInternalError/accessTokenSchemeMismatch`` for a
    ///   key-bound token, or an unbound one presented as `mtls_pop`; otherwise as
    ///   ``validate(_:correlationID:)``. ``MSALBearerChallenge`` turns each into the answer to send.
    public func validate(
        authorizationHeader: String?, clientCertificate: [UInt8]?, correlationID: UUID? = nil
    ) async throws
        -> AccessToken
    {
        let correlationID = correlationID ?? correlationIDs.make()
        guard let (scheme, token) = Self.credentials(authorizationHeader) else {
            throw MSALFailure(
                .internal, internalCode: .accessTokenMissing, message: "The request has no bearer or mtls_pop token",
                correlationID: correlationID)
        }
        let lowered = scheme.lowercased()
        guard lowered == "bearer" || lowered == "mtls_pop" else {
            throw MSALFailure(
                .internal, internalCode: .accessTokenMissing,
                message: "The Authorization scheme is neither Bearer nor mtls_pop", correlationID: correlationID)
        }
        guard Self.isCompactJWTText(token) else {
            throw MSALFailure(
                .internal, internalCode: .accessTokenMissing, message: "The access token is not a compact JWT", correlationID: correlationID
            )
        }
        let validated = try await validateRemembering(token, correlationID: correlationID, now: resolver.store.clock.now())
        guard let boundTo = validated.certificateThumbprint else {
            if validated.isSenderConstrained || lowered == "mtls_pop" {
                throw MSALFailure(
                    .internal, internalCode: .accessTokenSchemeMismatch,
                    message: validated.isSenderConstrained
                        ? "The access token is bound to a key (cnf), not to a client certificate, and was presented without its proof"
                        : "The access token presented as mtls_pop is not bound to a certificate (no cnf x5t#S256)",
                    correlationID: correlationID)
            }
            return validated
        }
        guard !validated.isBound(beyond: "x5t#S256") else {
            throw MSALFailure(
                .internal, internalCode: .accessTokenSchemeMismatch,
                message: "The access token is bound to more than a client certificate (cnf); the certificate alone does not prove it",
                correlationID: correlationID)
        }
        guard let clientCertificate, !clientCertificate.isEmpty else {
            throw MSALFailure(
                .internal, internalCode: .certificateBindingMismatch,
                message: "The access token is bound to a client certificate and the connection presented none",
                correlationID: correlationID)
        }
        let presented: [UInt8]
        do throws(JOSEError) {
            presented = try MessageDigest.sha256(clientCertificate)
        } catch {
            throw MSALFailure(error, correlationID: correlationID)
        }
        // Both sides are public values; the comparison is of their hashes, in constant time anyway.
        let expected = (try? Base64URL.decode(boundTo)) ?? []
        guard MessageDigest.constantTimeEquals(presented, expected) else {
            throw MSALFailure(
                .internal, internalCode: .certificateBindingMismatch,
                message: "The access token is bound to another client certificate than the connection's", correlationID: correlationID)
        }
        return validated
    }
}
