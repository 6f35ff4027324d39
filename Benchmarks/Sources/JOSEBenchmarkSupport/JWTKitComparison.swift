import Foundation
public import JWTKit

/// The claims jwt-kit decodes and checks: the same ones `IDTokenValidator`
/// judges (iss, aud, azp, exp, nbf, iat, nonce, sub), plus `tid`.
public struct SampleIDTokenPayload: JWTPayload {
    public var iss: IssuerClaim
    public var sub: SubjectClaim
    public var aud: AudienceClaim
    public var azp: String?
    public var exp: ExpirationClaim
    public var nbf: NotBeforeClaim
    public var iat: IssuedAtClaim
    public var nonce: String?
    public var tid: String?

    public func verify(using algorithm: some JWTAlgorithm) async throws {
        // Fixed clock inside the token's window, as for MSALJOSE.
        let now = SampleFixtures.now
        guard iss.value == SampleFixtures.issuer else {
            throw JWTError.claimVerificationFailure(failedClaim: iss, reason: "unexpected issuer")
        }
        try aud.verifyIntendedAudience(includes: SampleFixtures.clientID)
        if let azp, azp != SampleFixtures.clientID {
            throw JWTError.claimVerificationFailure(failedClaim: nil, reason: "azp names another client")
        }
        try exp.verifyNotExpired(currentDate: now)
        try nbf.verifyNotBefore(currentDate: now)
        guard iat.value <= now else {
            throw JWTError.claimVerificationFailure(failedClaim: iat, reason: "issued in the future")
        }
        guard nonce == SampleFixtures.nonce else {
            throw JWTError.claimVerificationFailure(failedClaim: nil, reason: "nonce mismatch")
        }
        guard !sub.value.isEmpty else {
            throw JWTError.claimVerificationFailure(failedClaim: sub, reason: "empty subject")
        }
    }
}

/// A jwt-kit key collection holding the sample's public key under its `kid`.
public enum JWTKitSetup {
    public static func addKey(for sample: SampleCase, to keys: JWTKeyCollection) async throws {
        let kid = JWKIdentifier(string: sample.keyID)
        switch sample.algorithm {
        case "RS256":
            let key = try Insecure.RSA.PublicKey(pem: sample.publicKeyPEM)
            await keys.add(rsa: key, digestAlgorithm: .sha256, kid: kid)
        case "ES256":
            let key = try ES256PublicKey(pem: sample.publicKeyPEM)
            await keys.add(ecdsa: key, kid: kid)
        default:
            fatalError("no jwt-kit setup for \(sample.algorithm)")
        }
    }
}

/// The same claims with plain types, for the Foundation JSONDecoder micro-benchmark.
public struct DecodedClaims: Decodable, Sendable {
    public var iss: String
    public var sub: String
    public var aud: String
    public var azp: String?
    public var exp: Double
    public var nbf: Double
    public var iat: Double
    public var nonce: String?
    public var tid: String?
}
