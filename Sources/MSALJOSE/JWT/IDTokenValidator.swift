import MSALJSON

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Verifies an ID token's signature and validates its claims.
///
/// Signature and key errors always win over claim errors: claims are judged
/// only after the signature has verified. Claims are then checked in this
/// order: `iss`, `aud`, `azp`, `exp`, `nbf`, `iat`, `nonce`, `sub`.
public struct IDTokenValidator: Sendable {
    /// Signature verification.
    public var verifier: JWTVerifier
    /// The expected claims.
    public var options: IDTokenValidationOptions

    /// Creates a validator.
    public init(keySet: JSONWebKeySet, options: IDTokenValidationOptions) {
        self.verifier = JWTVerifier(keySet: keySet)
        self.options = options
    }

    /// Creates a validator with a configured verifier.
    public init(verifier: JWTVerifier, options: IDTokenValidationOptions) {
        self.verifier = verifier
        self.options = options
    }

    /// Verifies and validates `token` at time `now`.
    public func validate(_ token: String, now: Date = Date()) throws(JOSEError) -> IDToken {
        let jwt = try verifier.verify(token)
        try Self.validateClaims(of: jwt, options: options, now: now.timeIntervalSince1970)
        return IDToken(jwt: jwt)
    }

    /// Validates the claims of a token whose signature ``JWTVerifier`` has verified.
    ///
    /// - Throws: ``JOSEError/Code/invalidSignature`` for a token from
    ///   ``JWT/decodeUnverified(_:maximumSize:)``: claims of an unverified token prove nothing.
    public static func validateClaims(of jwt: JWT, options: IDTokenValidationOptions, now: Double) throws(JOSEError) {
        guard jwt.isSignatureVerified else {
            throw JOSEError(.invalidSignature, "the token was decoded without verifying its signature; its claims cannot be validated")
        }
        let claims = jwt.claims.root
        let skew = max(0, options.clockSkew)

        try validateIssuer(claims, options: options)
        try validateAudience(claims, options: options)
        try validateTimes(claims, skew: skew, now: now)
        try validateNonce(claims, options: options)

        // sub. A JSON string decodes to an empty String exactly when nothing
        // stands between its quotes, so the raw bytes answer without a String.
        guard let subject = claims["sub"] else {
            throw JOSEError(.missingClaim, "claim sub is missing")
        }
        guard subject.kind == .string else {
            throw JOSEError(.invalidClaim, "claim sub must be a string")
        }
        guard !subject.rawBytes.isEmpty else { throw JOSEError(.invalidClaim, "claim sub is empty") }
    }

    private static func validateIssuer(_ claims: JSONValue, options: IDTokenValidationOptions) throws(JOSEError) {
        // Checked in place, without materializing the claim as a String.
        guard let issuerValue = claims["iss"] else {
            throw JOSEError(.missingClaim, "claim iss is missing")
        }
        guard issuerValue.kind == .string else {
            throw JOSEError(.invalidClaim, "claim iss must be a string")
        }
        guard options.checksIssuer else { return }
        var expectedIssuer = options.issuer
        // String.contains(String) runs a Character-level search (tens of thousands of
        // instructions); a template needs a "{" code unit, so look for that byte first.
        if expectedIssuer.utf8.contains(UInt8(ascii: "{")), expectedIssuer.contains("{tenantid}") {
            guard let tidValue = claims["tid"] else {
                throw JOSEError(.missingClaim, "claim tid is required to match the issuer template \(options.issuer)")
            }
            guard let tid = tidValue.string, !tid.isEmpty, tid.utf8.allSatisfy(isTenantCharacter) else {
                throw JOSEError(.invalidClaim, "claim tid is not a tenant id")
            }
            expectedIssuer = expectedIssuer.replacing("{tenantid}", with: tid)
        }
        // Byte-exact (JSONValue.isString compares unescaped UTF-8): String's == would
        // accept a canonically equivalent issuer.
        guard issuerValue.isString(expectedIssuer) else {
            let issuer = issuerValue.string ?? ""
            throw JOSEError(.issuerMismatch, "claim iss \"\(issuer.prefix(200))\" is not the expected issuer \"\(expectedIssuer)\"")
        }
    }

    private static func validateAudience(_ claims: JSONValue, options: IDTokenValidationOptions) throws(JOSEError) {
        guard options.checksAudience else { return }
        guard let audValue = claims["aud"] else {
            throw JOSEError(.missingClaim, "claim aud is missing")
        }
        var audienceCount = 0
        var containsClient = false
        if audValue.kind == .string {
            audienceCount = 1
            containsClient = audValue.isString(options.clientID)
        } else if audValue.kind == .array {
            for element in audValue.elements {
                guard element.kind == .string else {
                    throw JOSEError(.invalidClaim, "claim aud must be a string or an array of strings")
                }
                audienceCount += 1
                if element.isString(options.clientID) { containsClient = true }
            }
        } else {
            throw JOSEError(.invalidClaim, "claim aud must be a string or an array of strings")
        }
        guard containsClient else {
            throw JOSEError(.audienceMismatch, "claim aud does not contain the client id \(options.clientID)")
        }
        if let azp = claims["azp"] {
            guard azp.kind == .string else { throw JOSEError(.invalidClaim, "claim azp must be a string") }
            guard azp.isString(options.clientID) else {
                throw JOSEError(.authorizedPartyMismatch, "claim azp names another client than \(options.clientID)")
            }
        } else if audienceCount > 1 {
            throw JOSEError(.authorizedPartyMismatch, "claim aud has \(audienceCount) audiences but azp is missing")
        }

    }

    static func validateTimes(_ claims: JSONValue, skew: Double, now: Double) throws(JOSEError) {
        let expiry = try requiredNumericDate(claims, "exp")
        guard now < expiry + skew else {
            throw JOSEError(.tokenExpired, "token expired at \(formatted(expiry)) (now \(formatted(now)), skew \(Int(skew)) s)")
        }
        if claims["nbf"] != nil {
            let notBefore = try requiredNumericDate(claims, "nbf")
            guard notBefore <= now + skew else {
                throw JOSEError(
                    .tokenNotYetValid, "token is not valid before \(formatted(notBefore)) (now \(formatted(now)), skew \(Int(skew)) s)")
            }
        }
        let issuedAt = try requiredNumericDate(claims, "iat")
        guard issuedAt <= now + skew else {
            throw JOSEError(
                .tokenIssuedInFuture,
                "token was issued in the future at \(formatted(issuedAt)) (now \(formatted(now)), skew \(Int(skew)) s)")
        }

    }

    private static func validateNonce(_ claims: JSONValue, options: IDTokenValidationOptions) throws(JOSEError) {
        if let expectedNonce = options.nonce {
            guard let nonce = claims["nonce"] else {
                throw JOSEError(.nonceMismatch, "claim nonce is missing but a nonce was sent")
            }
            guard nonce.kind == .string else { throw JOSEError(.invalidClaim, "claim nonce must be a string") }
            guard nonce.isString(expectedNonce) else {
                throw JOSEError(.nonceMismatch, "claim nonce differs from the nonce that was sent")
            }
        }
    }

    static func isTenantCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    static func requiredNumericDate(_ claims: JSONValue, _ name: String) throws(JOSEError) -> Double {
        guard let value = claims[name] else {
            throw JOSEError(.missingClaim, "claim \(name) is missing")
        }
        guard value.kind == .number else {
            throw JOSEError(.invalidClaim, "claim \(name) must be a number (NumericDate)")
        }
        guard let seconds = value.double, seconds.isFinite, abs(seconds) < 1e15 else {
            throw JOSEError(.invalidClaim, "claim \(name) is not a usable NumericDate")
        }
        return seconds
    }

    private static func formatted(_ seconds: Double) -> String {
        String(Int64(seconds.rounded(.down)))
    }
}
