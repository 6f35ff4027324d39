import MSALJSON

/// Checks a DPoP proof (RFC 9449 §4.3) as an authorization server or a resource does: a compact
/// JWS of `typ` `dpop+jwt`, signed with an allow-listed asymmetric algorithm by the public key in
/// its own `jwk` header (never a private one), for this request's method (`htm`) and target URI
/// (`htu`), issued within the accepted window (`iat`), with a `jti`, and — when the server asked
/// for them — its nonce and the hash of the access token it accompanies (`ath`).
///
/// Replay of a `jti` is the caller's to refuse (it keeps the ids it has seen for the window), as
/// is the comparison of the returned thumbprint with the token's `cnf.jkt`.
package struct DPoPProofVerifier: Sendable {
    /// What a valid proof says.
    package struct Proof: Sendable, Equatable {
        /// The RFC 7638 thumbprint of the proof's key: the `jkt` a bound token names.
        package var thumbprint: String
        /// The proof's unique id.
        package var jti: String
        /// When it was made, in seconds since 1970.
        package var issuedAt: Int64
        /// The nonce it carries, if any.
        package var nonce: String?
    }

    /// How old a proof may be, in seconds.
    package var maximumAge: Int64
    /// How far in the future `iat` may be, in seconds (clock differences).
    package var clockSkew: Int64
    /// The longest proof accepted, in bytes.
    package var maximumSize: Int

    package init(maximumAge: Int64 = 300, clockSkew: Int64 = 60, maximumSize: Int = 8192) {
        self.maximumAge = maximumAge
        self.clockSkew = clockSkew
        self.maximumSize = maximumSize
    }

    /// Checks `proof` for one request.
    ///
    /// - Parameters:
    ///   - method: The request's method, as received.
    ///   - targetURI: The request's URI as the server is reached (scheme, host, port and path);
    ///     compared with `htu` after both lose their query and fragment and are normalized.
    ///   - accessToken: At a resource, the token the request presents: `ath` must be its hash.
    ///     `nil` at a token endpoint (an `ath` there is ignored).
    ///   - nonce: The nonce the server requires; `nil` accepts a proof with or without one.
    ///   - now: The current time in seconds since 1970.
    /// - Throws: ``JOSEError`` naming the first check that failed.
    ///   - keys: Where the keys of proof headers seen before are remembered (``DPoPProofKeys``): a
    ///     header met again is not read, checked and thumbprinted again. `nil`: every proof's key is read.
    package func verify(
        _ proof: String, method: String, targetURI: String, accessToken: String?, nonce: String?, now: Int64,
        keys: DPoPProofKeys? = nil
    ) throws(JOSEError) -> Proof {
        var token = proof
        let (jws, claims, signingInput) = try token.withUTF8Bytes {
            (utf8) throws(JOSEError) -> (CompactJWS, JSONDocument, [UInt8]) in
            let jws = try CompactJWS(utf8: utf8, maximumSize: maximumSize)
            let claims = try JWT.decodeClaims(utf8, (jws.firstDot + 1)..<jws.secondDot)
            return (jws, claims, Array(UnsafeBufferPointer(rebasing: utf8[0..<jws.secondDot])))
        }
        let header = jws.header.root
        guard header["typ"]?.string == "dpop+jwt" else {
            throw JOSEError(.invalidHeader, "the DPoP proof's typ is not dpop+jwt")
        }
        let segment = keys == nil ? nil : String(decoding: signingInput[..<jws.firstDot], as: UTF8.self)
        let entry: DPoPProofKeys.Entry
        let remembered = segment.flatMap { keys?.entry(forHeader: $0) }
        if let remembered {
            entry = remembered
        } else {
            entry = try Self.key(header)
        }
        guard try entry.key.verify(signature: jws.signature, over: signingInput, algorithm: jws.algorithm) else {
            throw JOSEError(.invalidSignature, "the DPoP proof's signature does not verify with its jwk")
        }
        // Remembered only once a proof verified with it: headers of unsigned junk never push out
        // the keys of real clients.
        if remembered == nil, let segment { keys?.remember(entry, forHeader: segment) }
        let root = claims.root
        /// The string claim `name`: `missingClaim` when absent, `invalidClaim` when not a string.
        func string(_ name: String) throws(JOSEError) -> String {
            guard let value = root[name] else { throw JOSEError(.missingClaim, "the DPoP proof has no \(name)") }
            guard let text = value.string else { throw JOSEError(.invalidClaim, "the DPoP proof's \(name) is not a string") }
            return text
        }
        let jti = try string("jti")
        guard !jti.isEmpty, jti.utf8.count <= 256 else { throw JOSEError(.invalidClaim, "the DPoP proof's jti is empty or over 256 bytes") }
        let htm = try string("htm")
        guard htm == method else { throw JOSEError(.invalidClaim, "the DPoP proof's htm is not this request's method") }
        let htu = try string("htu")
        guard Self.normalized(htu) == Self.normalized(targetURI) else {
            throw JOSEError(.invalidClaim, "the DPoP proof's htu is not this request's URI")
        }
        guard let iat = root["iat"] else { throw JOSEError(.missingClaim, "the DPoP proof has no iat") }
        guard let issuedAt = iat.int64 else { throw JOSEError(.invalidClaim, "the DPoP proof's iat is not an integer") }
        guard issuedAt <= now + clockSkew else { throw JOSEError(.tokenIssuedInFuture, "the DPoP proof was issued in the future") }
        guard issuedAt >= now - maximumAge else { throw JOSEError(.tokenExpired, "the DPoP proof is too old") }
        let carried = root["nonce"]?.string
        if let nonce, carried != nonce {
            throw JOSEError(
                .nonceMismatch, carried == nil ? "the DPoP proof has no nonce" : "the DPoP proof's nonce is not the current one")
        }
        if let accessToken {
            let ath = try string("ath")
            guard ath == Base64URL.encode(try MessageDigest.sha256(Array(accessToken.utf8))) else {
                throw JOSEError(.invalidClaim, "the DPoP proof's ath is not the hash of the access token presented")
            }
        }
        return Proof(thumbprint: entry.thumbprint, jti: jti, issuedAt: issuedAt, nonce: carried)
    }

    /// The public key of a proof header's `jwk`, checked, and its thumbprint.
    private static func key(_ header: JSONValue) throws(JOSEError) -> DPoPProofKeys.Entry {
        guard let jwk = header["jwk"], jwk.kind == .object else {
            throw JOSEError(.invalidHeader, "the DPoP proof's header has no jwk object")
        }
        // RFC 9449 §4.3 item 7: a private key in the header is a broken client, never accepted.
        for member in ["d", "p", "q", "dp", "dq", "qi", "k"] where jwk[member] != nil {
            throw JOSEError(.invalidKey, "the DPoP proof's jwk carries private key material")
        }
        let key = try JSONWebKey(jwk: jwk)
        return DPoPProofKeys.Entry(key: key, thumbprint: try key.thumbprint())
    }

    /// `uri` as `htu` is compared (RFC 9449 §4.3 item 9, RFC 3986 §6.2.2–6.2.3): without query and
    /// fragment, scheme and host in lower case, no default port, an empty path as `/`.
    ///
    /// On the UTF-8 bytes: a client makes one for every proof, and `String`'s searching and case
    /// mapping cost a proof a tenth of its time.
    package static func normalized(_ uri: String) -> String {
        var uri = uri
        return uri.withUTF8 { bytes -> String in
            let end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
            // "://" after the scheme.
            var schemeEnd = 0
            while schemeEnd + 2 < end,
                !(bytes[schemeEnd] == UInt8(ascii: ":") && bytes[schemeEnd + 1] == UInt8(ascii: "/")
                    && bytes[schemeEnd + 2] == UInt8(ascii: "/"))
            {
                schemeEnd += 1
            }
            guard schemeEnd + 2 < end else {
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self)
            }
            let authorityStart = schemeEnd + 3
            var pathStart = authorityStart
            while pathStart < end, bytes[pathStart] != UInt8(ascii: "/") { pathStart += 1 }
            var out: [UInt8] = []
            out.reserveCapacity(end + 1)
            func lower(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
            for index in 0..<schemeEnd { out.append(lower(bytes[index])) }
            let schemeLength = schemeEnd
            out += [UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "/")]
            var authorityEnd = min(pathStart, end)
            // A default port is left out: https's 443, http's 80.
            func endsWith(_ suffix: StaticString) -> Bool {
                let count = suffix.utf8CodeUnitCount
                guard authorityEnd - authorityStart >= count else { return false }
                return (0..<count).allSatisfy { bytes[authorityEnd - count + $0] == suffix.utf8Start[$0] }
            }
            let scheme = Array(out[..<schemeLength])
            if scheme == Array("https".utf8), endsWith(":443") {
                authorityEnd -= 4
            } else if scheme == Array("http".utf8), endsWith(":80") {
                authorityEnd -= 3
            }
            for index in authorityStart..<max(authorityStart, authorityEnd) { out.append(lower(bytes[index])) }
            if pathStart < end {
                out += UnsafeBufferPointer(rebasing: bytes[pathStart..<end])
            } else {
                out.append(UInt8(ascii: "/"))
            }
            return String(decoding: out, as: UTF8.self)
        }
    }
}
