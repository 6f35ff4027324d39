import Foundation
public import JWTKit

/// The claims jwt-kit decodes and checks: the same ones `IDTokenValidator`
/// judges (iss, aud, azp, exp, nbf, iat, nonce, sub), plus `tid`.
public struct SampleIDTokenPayload: JWTPayload {
    /// Issuer; must be ``SampleFixtures/issuer``.
    public var iss: IssuerClaim
    /// Subject; must not be empty.
    public var sub: SubjectClaim
    /// Audience; must include ``SampleFixtures/clientID``.
    public var aud: AudienceClaim
    /// Authorized party; when present, must be ``SampleFixtures/clientID``.
    public var azp: String?
    /// Expiration time; must not have passed at ``SampleFixtures/now``.
    public var exp: ExpirationClaim
    /// Not-before time; must not be after ``SampleFixtures/now``.
    public var nbf: NotBeforeClaim
    /// Issued-at time; must not be after ``SampleFixtures/now``.
    public var iat: IssuedAtClaim
    /// Nonce; must be ``SampleFixtures/nonce``.
    public var nonce: String?
    /// Tenant id; decoded but not checked.
    public var tid: String?

    /// Checks the claims as `IDTokenValidator` does, at the fixed time ``SampleFixtures/now``;
    /// throws a `JWTError` for the first claim that fails. `algorithm` is not used.
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

/// The claims jwt-kit decodes and checks for the sample access token: the same ones
/// `AccessTokenValidator` judges (iss among the accepted issuers, aud among the API's audiences,
/// exp, nbf and iat with 300 s of skew), then the required scope, as `require(scopes:)` does.
public struct SampleAccessTokenPayload: JWTPayload {
    /// The issuers accepted: the v2.0 issuer and Entra's v1.0 form for the same tenant.
    public static let issuers = [SampleFixtures.issuer, "https://sts.windows.net/9188040d-6c67-4c5b-b112-36a304b66dad/"]
    /// The API's audiences: its client id and App ID URI.
    public static let audiences = [SampleFixtures.clientID, "api://\(SampleFixtures.clientID)"]
    /// The scope a request must carry.
    public static let requiredScope = "access_as_user"
    /// Seconds of clock difference tolerated.
    public static let skew: TimeInterval = 300

    /// Issuer; must be one of ``issuers``.
    public var iss: IssuerClaim
    /// Audience; must include one of ``audiences``.
    public var aud: AudienceClaim
    /// Expiration time; must not have passed at ``SampleFixtures/now`` minus the skew.
    public var exp: ExpirationClaim
    /// Not-before time; must not be after ``SampleFixtures/now`` plus the skew.
    public var nbf: NotBeforeClaim?
    /// Issued-at time; must not be after ``SampleFixtures/now`` plus the skew.
    public var iat: IssuedAtClaim
    /// Delegated permissions, space-separated.
    public var scp: String?
    /// Tenant id; decoded but not checked (single-tenant API).
    public var tid: String?

    /// Checks the claims at the fixed time ``SampleFixtures/now``; throws a `JWTError` for the
    /// first claim that fails. `algorithm` is not used.
    public func verify(using algorithm: some JWTAlgorithm) async throws {
        let now = SampleFixtures.now
        guard Self.issuers.contains(iss.value) else {
            throw JWTError.claimVerificationFailure(failedClaim: iss, reason: "unexpected issuer")
        }
        guard aud.value.contains(where: { Self.audiences.contains($0) }) else {
            throw JWTError.claimVerificationFailure(failedClaim: aud, reason: "not for this API")
        }
        try exp.verifyNotExpired(currentDate: now.addingTimeInterval(-Self.skew))
        try nbf?.verifyNotBefore(currentDate: now.addingTimeInterval(Self.skew))
        guard iat.value <= now.addingTimeInterval(Self.skew) else {
            throw JWTError.claimVerificationFailure(failedClaim: iat, reason: "issued in the future")
        }
        guard let scp, scp.split(separator: " ").contains(where: { $0 == Self.requiredScope }) else {
            throw JWTError.claimVerificationFailure(failedClaim: nil, reason: "insufficient scope")
        }
    }
}

/// A jwt-kit key collection holding the sample's public key under its `kid`.
public enum JWTKitSetup {
    /// Adds `sample`'s public key (RS256 with SHA-256, or ES256) to `keys` under the sample's `kid`;
    /// stops the run for any other algorithm.
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
    /// Issuer (`iss`).
    public var iss: String
    /// Subject (`sub`).
    public var sub: String
    /// Audience (`aud`), a single string in the samples.
    public var aud: String
    /// Authorized party (`azp`), if present.
    public var azp: String?
    /// Expiration time (`exp`), seconds since 1970.
    public var exp: Double
    /// Not-before time (`nbf`), seconds since 1970.
    public var nbf: Double
    /// Issued-at time (`iat`), seconds since 1970.
    public var iat: Double
    /// Nonce (`nonce`), if present.
    public var nonce: String?
    /// Tenant id (`tid`), if present.
    public var tid: String?
}
