import MSALJSON

/// A private key that signs compact JWS tokens (RS256/PS256 with RSA,
/// ES256/ES384 with EC), for the local identity provider and for tests.
package struct JWSSigningKey: Sendable {
    package let keyID: String
    package let algorithm: JWSAlgorithm
    let key: OpenSSLKey
    /// A signing context prepared once for ``algorithm`` (see ``OpenSSLDigestTemplate``); `nil` when
    /// it could not be made, and signing then runs the per-call `EVP_DigestSignInit`, which reports
    /// its own errors.
    let signTemplate: OpenSSLDigestTemplate?

    init(keyID: String, algorithm: JWSAlgorithm, key: OpenSSLKey) {
        self.keyID = keyID
        self.algorithm = algorithm
        self.key = key
        // Best effort: a failure here (already drained from OpenSSL's queue) only means signing
        // runs the per-call init.
        signTemplate = try? OpenSSLDigestTemplate(key: key, algorithm: algorithm, operation: .sign)
    }

    /// Generates an RSA key (2048 bits or more) that signs with `algorithm`.
    package static func generateRSA(bits: Int = 2048, keyID: String, algorithm: JWSAlgorithm = .rs256) throws(JOSEError) -> JWSSigningKey {
        precondition(algorithm.keyType == .rsa, "RSA keys sign only RS*/PS*")
        return JWSSigningKey(keyID: keyID, algorithm: algorithm, key: try OpenSSLKey.generate(rsaBits: bits))
    }

    /// Generates an EC key on the curve `algorithm` needs (ES256 → P-256, ES384 → P-384).
    package static func generateEC(keyID: String, algorithm: JWSAlgorithm = .es256) throws(JOSEError) -> JWSSigningKey {
        precondition(algorithm.keyType == .ellipticCurve, "EC keys sign only ES*")
        return JWSSigningKey(keyID: keyID, algorithm: algorithm, key: try OpenSSLKey.generate(curve: algorithm.curve!))
    }

    /// The public half as a JWK object (`kty`, `kid`, `use`, `alg`, and `n`/`e` or `crv`/`x`/`y`).
    package func publicJWK() throws(JOSEError) -> JSON {
        var members: [JSONMember] = [
            JSONMember(name: "kty", value: .string(algorithm.keyType.rawValue)),
            JSONMember(name: "kid", value: .string(keyID)),
            JSONMember(name: "use", value: .string("sig")),
            JSONMember(name: "alg", value: .string(algorithm.rawValue)),
        ]
        switch algorithm.keyType {
        case .rsa:
            members.append(JSONMember(name: "n", value: .string(Base64URL.encode(try key.bigNumberParameter("n")))))
            members.append(JSONMember(name: "e", value: .string(Base64URL.encode(try key.bigNumberParameter("e")))))
        case .ellipticCurve:
            let curve = algorithm.curve!
            members.append(JSONMember(name: "crv", value: .string(curve.rawValue)))
            members.append(
                JSONMember(name: "x", value: .string(Base64URL.encode(try key.bigNumberParameter("qx", width: curve.coordinateSize)))))
            members.append(
                JSONMember(name: "y", value: .string(Base64URL.encode(try key.bigNumberParameter("qy", width: curve.coordinateSize)))))
        }
        return .object(members)
    }

    /// The public key, for verification.
    package func publicKey() throws(JOSEError) -> JSONWebKey {
        let jwk = JSONWriter.write(try publicJWK())
        return try JSONWebKey(json: jwk)
    }

    /// Signs `claims` as a compact JWS with header `{"alg","kid","typ":"JWT"}` plus `extraHeader` members.
    package func sign(claims: JSON, extraHeader: [JSONMember] = []) throws(JOSEError) -> String {
        let header = JSON.object(
            [
                JSONMember(name: "alg", value: .string(algorithm.rawValue)),
                JSONMember(name: "kid", value: .string(keyID)),
                JSONMember(name: "typ", value: .string("JWT")),
            ] + extraHeader)
        return try sign(headerBytes: JSONWriter.write(header), payloadBytes: JSONWriter.write(claims))
    }

    /// Signs arbitrary header and payload bytes (tests use this to build malformed tokens that still carry valid signatures).
    package func sign(headerBytes: [UInt8], payloadBytes: [UInt8], algorithm override: JWSAlgorithm? = nil) throws(JOSEError) -> String {
        try sign(encodedHeader: Base64URL.encodeToBytes(headerBytes), payloadBytes: payloadBytes, algorithm: override)
    }

    /// Signs `payloadBytes` under a header already base64url-encoded (a header that is the same for
    /// every token a key signs, encoded once).
    package func sign(encodedHeader: [UInt8], payloadBytes: [UInt8], algorithm override: JWSAlgorithm? = nil) throws(JOSEError) -> String {
        var signingInput = encodedHeader
        signingInput.reserveCapacity(encodedHeader.count + 1 + (payloadBytes.count + 2) / 3 * 4)
        signingInput.append(UInt8(ascii: "."))
        signingInput += Base64URL.encodeToBytes(payloadBytes)
        let signature = try signingInput.withRawBytes { (buffer) throws(JOSEError) -> [UInt8] in
            try key.sign(message: buffer, algorithm: override ?? algorithm, template: signTemplate)
        }
        signingInput.append(UInt8(ascii: "."))
        signingInput += Base64URL.encodeToBytes(signature)
        return String(decoding: signingInput, as: UTF8.self)
    }

    /// Signs raw bytes and returns the JWS signature (R‖S for ECDSA).
    package func signature(over message: [UInt8], algorithm override: JWSAlgorithm? = nil) throws(JOSEError) -> [UInt8] {
        try message.withRawBytes { (buffer) throws(JOSEError) -> [UInt8] in
            try key.sign(message: buffer, algorithm: override ?? algorithm, template: signTemplate)
        }
    }
}
