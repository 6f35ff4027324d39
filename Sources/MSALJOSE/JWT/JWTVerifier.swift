import MSALJSON

/// Verifies compact JWS signatures against a JWK set.
///
/// Order of checks, so that the most fundamental failure is the one reported:
/// size and structure; header (`alg` allow-list, `crit`); key selection and
/// algorithm/key fit; signature; then the payload is decoded. Claims are not
/// judged here (see ``IDTokenValidator``), so a token whose signature fails is
/// never reported as expired.
public struct JWTVerifier: Sendable {
    /// The trusted keys.
    public var keySet: JSONWebKeySet
    /// Algorithms accepted; a subset of ``JWSAlgorithm/allCases``.
    public var allowedAlgorithms: Set<JWSAlgorithm>
    /// Largest token accepted, in bytes.
    public var maximumTokenSize: Int

    /// Default for ``maximumTokenSize``: 128 KiB, far above any real ID token.
    public static let defaultMaximumTokenSize = 128 * 1024

    /// Every algorithm, built once: a protected API creates a verifier per request.
    @usableFromInline static let everyAlgorithm = Set(JWSAlgorithm.allCases)

    /// Creates a verifier for `keySet`.
    public init(
        keySet: JSONWebKeySet, allowedAlgorithms: Set<JWSAlgorithm> = JWTVerifier.everyAlgorithm,
        maximumTokenSize: Int = JWTVerifier.defaultMaximumTokenSize
    ) {
        self.keySet = keySet
        self.allowedAlgorithms = allowedAlgorithms
        self.maximumTokenSize = maximumTokenSize
    }

    /// Verifies the signature of a compact JWT and decodes it.
    ///
    /// - Throws: ``JOSEError`` naming the first failed check.
    public func verify(_ token: String) throws(JOSEError) -> JWT {
        var token = token
        return try token.withUTF8Bytes { (utf8) throws(JOSEError) -> JWT in
            try verify(utf8: utf8)
        }
    }

    func verify(utf8: UnsafeBufferPointer<UInt8>) throws(JOSEError) -> JWT {
        let jws = try verifiedCompactJWS(utf8: utf8)
        let claims = try JWT.decodeClaims(utf8, (jws.firstDot + 1)..<jws.secondDot)
        return JWT(header: jws.header, claims: claims, isSignatureVerified: true)
    }

    /// Verifies the signature of a compact JWS and returns its header and raw
    /// payload, without requiring the payload to be a JSON object.
    ///
    /// Runs exactly the checks of ``verify(_:)`` up to and including the
    /// signature; only the final step differs (the payload is base64url-decoded
    /// but not parsed). For conformance tests whose payloads are not JWT claims.
    package func verifySignature(_ token: String) throws(JOSEError) -> (header: JSONDocument, payload: [UInt8]) {
        var token = token
        return try token.withUTF8Bytes { (utf8) throws(JOSEError) -> (header: JSONDocument, payload: [UInt8]) in
            let jws = try verifiedCompactJWS(utf8: utf8)
            let payload = try CompactJWS.decodeSegment(utf8, (jws.firstDot + 1)..<jws.secondDot, name: "payload")
            return (jws.header, payload)
        }
    }

    /// Structure, header, key selection and signature: every check before the payload is looked at.
    private func verifiedCompactJWS(utf8: UnsafeBufferPointer<UInt8>) throws(JOSEError) -> CompactJWS {
        let jws = try CompactJWS(utf8: utf8, maximumSize: maximumTokenSize)
        guard allowedAlgorithms.contains(jws.algorithm) else {
            throw JOSEError(.unsupportedAlgorithm, "alg \(jws.algorithm.rawValue) is not allowed by this verifier")
        }
        let key = try keySet.selectKey(keyID: jws.header.root["kid"], algorithm: jws.algorithm)
        let signingInput = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[0..<jws.secondDot])
        let valid = try jws.signature.withRawBytes { (signature) throws(JOSEError) -> Bool in
            try key.key.verify(signature: signature, message: signingInput, algorithm: jws.algorithm, template: key.verifyTemplate)
        }
        guard valid else {
            throw JOSEError(
                .invalidSignature, "\(jws.algorithm.rawValue) signature does not verify with key \"\((key.keyID ?? "").prefix(64))\"")
        }
        return jws
    }
}
