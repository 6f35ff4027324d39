import MSALJSON

extension JWSSigningKey {
    /// Reads a key pair kept as a PKCS#8 `PRIVATE KEY` PEM block (``privateKeyPEM()``), refusing one
    /// that cannot sign with `algorithm` (an RSA key of 2048 bits or more for RS*/PS*, an EC key on
    /// the algorithm's curve for ES*).
    ///
    /// - Throws: ``JOSEError/Code/invalidPEM`` for text without a readable key,
    ///   ``JOSEError/Code/algorithmKeyMismatch`` for a key of another type, curve or size.
    package init(privateKeyPEM pem: [UInt8], keyID: String, algorithm: JWSAlgorithm) throws(JOSEError) {
        let key = try OpenSSLKey.readPrivateKeyPEM(pem, password: nil)
        switch algorithm.curve {
        case nil:
            guard key.isRSA, key.bits >= JSONWebKey.minimumRSABits, key.bits <= JSONWebKey.maximumRSABits else {
                throw JOSEError(.algorithmKeyMismatch, "\(algorithm.rawValue) needs an RSA key of 2048 bits or more")
            }
        case let curve?:
            guard key.isEC, key.bits == curve.coordinateSize * 8 else {
                throw JOSEError(.algorithmKeyMismatch, "\(algorithm.rawValue) needs an EC key on \(curve.rawValue)")
            }
        }
        self.init(keyID: keyID, algorithm: algorithm, key: key)
    }

    /// The key pair as an unencrypted PKCS#8 `PRIVATE KEY` PEM block, for a store that keeps it
    /// (a file of mode 0600, the Secret Service); never logged.
    package func privateKeyPEM() throws(JOSEError) -> [UInt8] {
        try key.privateKeyPEM()
    }

    /// The public key's required members only (RFC 7638 §3.2, in its order): a DPoP proof's `jwk`
    /// header, a signed HTTP request's `cnf.jwk`.
    package func requiredPublicJWK() throws(JOSEError) -> JSON {
        try key.requiredPublicJWK(curve: algorithm.curve)
    }

    /// The RFC 7638 SHA-256 thumbprint of the public key (base64url): DPoP's `jkt` and `dpop_jkt`,
    /// the `kid` of MSAL's `req_cnf`.
    package func thumbprint() throws(JOSEError) -> String {
        try key.thumbprint(curve: algorithm.curve)
    }
}
