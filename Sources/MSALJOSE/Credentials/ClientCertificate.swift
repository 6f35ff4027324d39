import MSALJSON

/// A confidential client's certificate credential: an RSA private key and the certificate (or
/// chain) holding its public half. It signs the RFC 7523 client assertions that stand in for a
/// client secret (`private_key_jwt`).
///
/// Built once from PEM text and checked then: the key is RSA of at least 2048 bits, and one of the
/// certificates holds its public half.
package struct ClientCertificate: Sendable, CustomStringConvertible {
    /// Which thumbprint names the certificate in an assertion's header, and so how it is signed.
    package enum Thumbprint: Sendable {
        /// `x5t#S256` (SHA-256), signed PS256: the Microsoft identity platform.
        case sha256
        /// `x5t` (SHA-1), signed RS256: ADFS and other providers.
        case sha1
    }

    /// The largest PEM text read (private key or certificates).
    package static let maximumPEMSize = 64 * 1024

    /// The DER encoding of each certificate: the key's own first, then the others in the order given.
    package let chain: [[UInt8]]
    /// SHA-256 over the key's certificate's DER.
    package let sha256Thumbprint: [UInt8]
    /// SHA-1 over the key's certificate's DER (the `x5t` header; never used for a signature).
    package let sha1Thumbprint: [UInt8]
    /// The RSA modulus size in bits.
    package let keyBits: Int
    /// The private key (used inside MSALJOSE only).
    let key: OpenSSLKey
    /// The key as the PS256 and RS256 signers of assertions, each with its signing context
    /// prepared once (an assertion is signed for every token request).
    private let ps256Signer: JWSSigningKey
    private let rs256Signer: JWSSigningKey

    /// Reads and checks a private key and its certificate (chain) from PEM text.
    ///
    /// - Parameters:
    ///   - privateKeyPEM: a `PRIVATE KEY`, `RSA PRIVATE KEY` or `ENCRYPTED PRIVATE KEY` block.
    ///   - certificatePEM: one or more `CERTIFICATE` blocks; one must hold the key's public half.
    ///   - password: the password of an encrypted private key.
    /// - Throws: ``JOSEError/Code/invalidPEM`` (unreadable text, a wrong or missing password),
    ///   ``JOSEError/Code/limitExceeded`` (text over ``maximumPEMSize``, or more than 16 certificates),
    ///   ``JOSEError/Code/unsupportedCredentialKey`` (not RSA, or under 2048 bits),
    ///   ``JOSEError/Code/certificateKeyMismatch`` (no certificate holds the key's public half).
    package init(privateKeyPEM: [UInt8], certificatePEM: [UInt8], password: [UInt8]? = nil) throws(JOSEError) {
        for (text, name) in [(privateKeyPEM, "private key"), (certificatePEM, "certificate")]
        where text.count > Self.maximumPEMSize {
            throw JOSEError(.limitExceeded, "the \(name) PEM text is \(text.count) bytes, over the \(Self.maximumPEMSize)-byte limit")
        }
        let key = try OpenSSLKey.readPrivateKeyPEM(privateKeyPEM, password: password)
        guard key.isRSA else {
            throw JOSEError(.unsupportedCredentialKey, "the private key is not an RSA key (client assertions are signed with RSA)")
        }
        guard key.bits >= 2048 else {
            throw JOSEError(.unsupportedCredentialKey, "the RSA private key has \(key.bits) bits; at least 2048 are required")
        }
        let certificates = try OpenSSLCertificate.readPEM(certificatePEM)
        guard !certificates.isEmpty else {
            throw JOSEError(.invalidPEM, "the certificate PEM text holds no CERTIFICATE block")
        }
        guard let leaf = certificates.firstIndex(where: { $0.certifies(key) }) else {
            throw JOSEError(
                .certificateKeyMismatch,
                certificates.count == 1
                    ? "the certificate does not hold the private key's public half"
                    : "none of the \(certificates.count) certificates holds the private key's public half")
        }
        var chain: [[UInt8]] = [try certificates[leaf].derBytes()]
        for index in certificates.indices where index != leaf {
            chain.append(try certificates[index].derBytes())
        }
        self.chain = chain
        self.sha256Thumbprint = try chain[0].withRawBytes { (der) throws(JOSEError) -> [UInt8] in try OpenSSLDigest.sha256.hash(der) }
        self.sha1Thumbprint = try chain[0].withRawBytes { (der) throws(JOSEError) -> [UInt8] in try OpenSSLDigest.sha1.hash(der) }
        self.keyBits = key.bits
        self.key = key
        ps256Signer = JWSSigningKey(keyID: "", algorithm: .ps256, key: key)
        rs256Signer = JWSSigningKey(keyID: "", algorithm: .rs256, key: key)
    }

    /// A new RSA key and a self-signed certificate for it, as PEM text (an unencrypted PKCS#8
    /// `PRIVATE KEY` block, one `CERTIFICATE` block): test material for a provider that registers
    /// the certificate and a client that signs with the key.
    package static func generateSelfSigned(
        commonName: String, bits: Int = 2048, days: Int = 30
    ) throws(JOSEError) -> (privateKeyPEM: [UInt8], certificatePEM: [UInt8]) {
        let key = try OpenSSLKey.generate(rsaBits: bits)
        let certificate = try OpenSSLCertificate.selfSigned(key: key, commonName: commonName, days: days)
        return (try key.privateKeyPEM(), try certificate.pemText())
    }

    /// The key size, the chain's length and the certificate's SHA-256 thumbprint: nothing secret,
    /// and not the certificates' bytes.
    package var description: String {
        "ClientCertificate(RSA \(keyBits) bits, \(chain.count) certificate(s), x5t#S256 \(Base64URL.encode(sha256Thumbprint)))"
    }

    /// Signs a client assertion (RFC 7523 §3, the claims MSAL's other libraries send).
    ///
    /// Header: `alg` (PS256 with ``Thumbprint/sha256``, RS256 with ``Thumbprint/sha1``), `typ`
    /// `JWT`, the thumbprint (base64url), and `x5c` (the chain, standard base64 DER) when
    /// `sendX5C`. Claims: `aud`, `iss` and `sub` (the client id), `jti`, `nbf` and `iat` (`issuedAt`),
    /// `exp` (`issuedAt + lifetime`), in whole seconds since 1970; then `extraClaims` as strings,
    /// in name order, except any that names one of those.
    package func signAssertion(
        clientID: String, audience: String, issuedAt: Int64, lifetime: Int64, jwtID: String, thumbprint: Thumbprint,
        sendX5C: Bool, extraClaims: [String: String] = [:]
    ) throws(JOSEError) -> String {
        var header: [JSONMember] = [
            JSONMember(name: "alg", value: .string(thumbprint == .sha256 ? "PS256" : "RS256")),
            JSONMember(name: "typ", value: .string("JWT")),
        ]
        switch thumbprint {
        case .sha256: header.append(JSONMember(name: "x5t#S256", value: .string(Base64URL.encode(sha256Thumbprint))))
        case .sha1: header.append(JSONMember(name: "x5t", value: .string(Base64URL.encode(sha1Thumbprint))))
        }
        if sendX5C {
            header.append(JSONMember(name: "x5c", value: .array(chain.map { .string(Base64URL.encodeStandard($0)) })))
        }
        var members = [
            JSONMember(name: "aud", value: .string(audience)),
            JSONMember(name: "iss", value: .string(clientID)),
            JSONMember(name: "sub", value: .string(clientID)),
            JSONMember(name: "jti", value: .string(jwtID)),
            JSONMember(name: "nbf", value: .number(String(issuedAt))),
            JSONMember(name: "iat", value: .number(String(issuedAt))),
            JSONMember(name: "exp", value: .number(String(issuedAt + lifetime))),
        ]
        // The caller's claims after the registered ones, in a stable order; a registered name is
        // never replaced (the caller refuses them before signing).
        let registered = Set(members.map(\.name))
        for name in extraClaims.keys.sorted() where !registered.contains(name) {
            members.append(JSONMember(name: name, value: .string(extraClaims[name]!)))
        }
        let claims = JSON.object(members)
        let signer = thumbprint == .sha256 ? ps256Signer : rs256Signer
        return try signer.sign(headerBytes: JSONWriter.write(.object(header)), payloadBytes: JSONWriter.write(claims))
    }
}
