import MSALJSON

/// Checks MSAL's signed HTTP request (SHR: the `PoP` scheme of Microsoft Entra's proof of
/// possession) as a resource does: a compact JWS with an allow-listed asymmetric algorithm,
/// signed by the public key in its own `cnf.jwk` (never a private one), carrying the access token
/// (`at`), this request's method (`m`), host (`u`) and path (`p`), a timestamp within the accepted
/// window (`ts`) and a `nonce`.
///
/// Validating `at` itself, comparing the returned thumbprint with its `cnf.kid`, and refusing a
/// replayed `nonce` are the caller's.
package struct SignedHTTPRequestVerifier: Sendable {
    /// What a valid signed request says.
    package struct Request: Sendable, Equatable {
        /// The access token it presents (`at`).
        package var accessToken: String
        /// The RFC 7638 thumbprint of its key (`cnf.jwk`): the `kid` a bound token's `cnf` names.
        package var thumbprint: String
        /// Its nonce.
        package var nonce: String
        /// When it was signed (`ts`), in seconds since 1970.
        package var timestamp: Int64
    }

    /// How old a signed request may be, in seconds.
    package var maximumAge: Int64
    /// How far in the future `ts` may be, in seconds.
    package var clockSkew: Int64
    /// The longest signed request accepted, in bytes (it carries the access token).
    package var maximumSize: Int

    package init(maximumAge: Int64 = 300, clockSkew: Int64 = 60, maximumSize: Int = 32 * 1024) {
        self.maximumAge = maximumAge
        self.clockSkew = clockSkew
        self.maximumSize = maximumSize
    }

    /// Checks `signedRequest` for one request.
    ///
    /// - Parameters:
    ///   - method: The request's method, as received.
    ///   - host: The request's host as the client reached it, lower case, with a port other than
    ///     the scheme's default (`u`).
    ///   - path: The request's path as sent, percent-encoded (`p`).
    ///   - now: The current time in seconds since 1970.
    /// - Throws: ``JOSEError`` naming the first check that failed.
    package func verify(_ signedRequest: String, method: String, host: String, path: String, now: Int64) throws(JOSEError) -> Request {
        var text = signedRequest
        let (jws, claims, signingInput) = try text.withUTF8Bytes { (utf8) throws(JOSEError) -> (CompactJWS, JSONDocument, [UInt8]) in
            let jws = try CompactJWS(utf8: utf8, maximumSize: maximumSize)
            let claims = try JWT.decodeClaims(utf8, (jws.firstDot + 1)..<jws.secondDot)
            return (jws, claims, Array(UnsafeBufferPointer(rebasing: utf8[0..<jws.secondDot])))
        }
        let root = claims.root
        guard let jwk = root["cnf"]?["jwk"], jwk.kind == .object else {
            throw JOSEError(.missingClaim, "the signed request has no cnf.jwk")
        }
        for member in ["d", "p", "q", "dp", "dq", "qi", "k"] where jwk[member] != nil {
            throw JOSEError(.invalidKey, "the signed request's cnf.jwk carries private key material")
        }
        let key = try JSONWebKey(jwk: jwk)
        guard try key.verify(signature: jws.signature, over: signingInput, algorithm: jws.algorithm) else {
            throw JOSEError(.invalidSignature, "the signed request's signature does not verify with its cnf.jwk")
        }
        func string(_ name: String) throws(JOSEError) -> String {
            guard let value = root[name] else { throw JOSEError(.missingClaim, "the signed request has no \(name)") }
            guard let text = value.string else { throw JOSEError(.invalidClaim, "the signed request's \(name) is not a string") }
            return text
        }
        let accessToken = try string("at")
        guard !accessToken.isEmpty else { throw JOSEError(.invalidClaim, "the signed request's at is empty") }
        guard try string("m") == method else { throw JOSEError(.invalidClaim, "the signed request's m is not this request's method") }
        guard try string("u").lowercased() == host.lowercased() else {
            throw JOSEError(.invalidClaim, "the signed request's u is not this request's host")
        }
        // MSAL leaves `p` out for an empty path.
        let signedPath = root["p"] == nil ? "/" : try string("p")
        guard signedPath == (path.isEmpty ? "/" : path) else {
            throw JOSEError(.invalidClaim, "the signed request's p is not this request's path")
        }
        guard let ts = root["ts"] else { throw JOSEError(.missingClaim, "the signed request has no ts") }
        guard let timestamp = ts.int64 else { throw JOSEError(.invalidClaim, "the signed request's ts is not an integer") }
        guard timestamp <= now + clockSkew else { throw JOSEError(.tokenIssuedInFuture, "the signed request was made in the future") }
        guard timestamp >= now - maximumAge else { throw JOSEError(.tokenExpired, "the signed request is too old") }
        let nonce = try string("nonce")
        guard !nonce.isEmpty, nonce.utf8.count <= 256 else {
            throw JOSEError(.invalidClaim, "the signed request's nonce is empty or over 256 bytes")
        }
        return Request(accessToken: accessToken, thumbprint: try key.thumbprint(), nonce: nonce, timestamp: timestamp)
    }
}
