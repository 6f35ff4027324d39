import MSALJSON

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Verifies an access token's signature and validates the claims a protected API relies on.
///
/// The signature is checked first (``JWTVerifier``: `alg` allow-list, the key by `kid`), so a
/// forged token is never reported as expired. Then `iss` (one of the accepted issuers, a
/// `{tenantid}` template filled with the token's `tid`), `aud` (one of the accepted audiences),
/// `exp`, `nbf` and `iat` with the clock skew. Whether the caller holds a permission is a
/// separate question (``AccessToken/scopes``, ``AccessToken/roles``).
public struct AccessTokenValidator: Sendable {
    /// Signature verification.
    public var verifier: JWTVerifier
    /// The expected claims.
    public var options: AccessTokenValidationOptions

    /// Creates a validator for tokens signed by a key of `keySet`.
    public init(keySet: JSONWebKeySet, options: AccessTokenValidationOptions) {
        self.verifier = JWTVerifier(keySet: keySet)
        self.options = options
    }

    /// Verifies and validates `token` at time `now`.
    ///
    /// - Throws: ``JOSEError`` naming the first failed check.
    public func validate(_ token: String, now: Date = Date()) throws(JOSEError) -> AccessToken {
        try validated(try verifier.verify(token), now: now)
    }

    /// ``validate(_:now:)`` on the token's UTF-8 bytes, for a caller that has them (an
    /// `Authorization` header's): no `String` is made of the token.
    package func validate(utf8 token: UnsafeBufferPointer<UInt8>, now: Date) throws(JOSEError) -> AccessToken {
        try validated(try verifier.verify(utf8: token), now: now)
    }

    /// The claim checks of a token whose signature `jwt` verified.
    private func validated(_ jwt: JWT, now: Date) throws(JOSEError) -> AccessToken {
        let claims = jwt.claims.root
        try Self.validateIssuer(claims, options: options)
        try Self.validateAudience(claims, audiences: options.audiences)
        try IDTokenValidator.validateTimes(claims, skew: max(0, options.clockSkew), now: now.timeIntervalSince1970)
        return AccessToken(jwt: jwt)
    }

    private static func validateIssuer(_ claims: JSONValue, options: AccessTokenValidationOptions) throws(JOSEError) {
        guard let issuerValue = claims["iss"] else { throw JOSEError(.missingClaim, "claim iss is missing") }
        guard issuerValue.kind == .string else { throw JOSEError(.invalidClaim, "claim iss must be a string") }
        for expected in options.issuers {
            guard expected.utf8.contains(UInt8(ascii: "{")), expected.firstRange(of: "{tenantid}") != nil else {
                if issuerValue.isString(expected) { return }
                continue
            }
            guard let tid = claims["tid"]?.string, !tid.isEmpty, tid.utf8.allSatisfy(IDTokenValidator.isTenantCharacter) else {
                continue
            }
            guard issuerValue.isString(expected.replacing("{tenantid}", with: tid)) else { continue }
            if let allowed = options.allowedTenants, !allowed.contains(tid.lowercased()) {
                throw JOSEError(.issuerMismatch, "the token's tenant \(tid) is not one of the tenants this API accepts")
            }
            return
        }
        let issuer = issuerValue.string ?? ""
        throw JOSEError(
            .issuerMismatch,
            "claim iss \"\(issuer.prefix(200))\" is not an accepted issuer (\(options.issuers.joined(separator: ", ")))")
    }

    private static func validateAudience(_ claims: JSONValue, audiences: [String]) throws(JOSEError) {
        guard let audValue = claims["aud"] else { throw JOSEError(.missingClaim, "claim aud is missing") }
        var values: [JSONValue] = []
        if audValue.kind == .string {
            values = [audValue]
        } else if audValue.kind == .array {
            for element in audValue.elements {
                guard element.kind == .string else { throw JOSEError(.invalidClaim, "claim aud must be a string or an array of strings") }
                values.append(element)
            }
        } else {
            throw JOSEError(.invalidClaim, "claim aud must be a string or an array of strings")
        }
        guard values.contains(where: { value in audiences.contains { value.isString($0) } }) else {
            throw JOSEError(.audienceMismatch, "claim aud names none of this API's audiences (\(audiences.joined(separator: ", ")))")
        }
    }
}
