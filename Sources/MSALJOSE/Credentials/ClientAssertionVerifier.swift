import MSALJSON

/// The token endpoint's side of a certificate credential: checks that a `private_key_jwt` client
/// assertion (RFC 7523 §3) is signed by the key of one registered certificate.
///
/// Only the signature and the certificate it names are judged here; the claims (`aud`, `iss`,
/// `sub`, `exp`, `nbf`, `jti`) are the provider's to check, with its own clock and replay store.
package struct ClientAssertionVerifier: Sendable {
    /// The largest assertion read.
    package static let maximumAssertionSize = 16 * 1024

    /// SHA-256 over the certificate's DER (an assertion's `x5t#S256`).
    package let sha256Thumbprint: [UInt8]
    /// SHA-1 over the certificate's DER (an assertion's `x5t`).
    package let sha1Thumbprint: [UInt8]
    private let key: JSONWebKey

    /// Reads the registered certificate: the first `CERTIFICATE` block of `certificatePEM`, whose
    /// public key must be RSA (client assertions are signed RS256 or PS256).
    ///
    /// - Throws: ``JOSEError/Code/invalidPEM`` (no readable certificate),
    ///   ``JOSEError/Code/limitExceeded`` (text over ``ClientCertificate/maximumPEMSize``),
    ///   ``JOSEError/Code/unsupportedCredentialKey`` (not an RSA key).
    package init(certificatePEM: [UInt8]) throws(JOSEError) {
        guard certificatePEM.count <= ClientCertificate.maximumPEMSize else {
            throw JOSEError(
                .limitExceeded,
                "the certificate PEM text is \(certificatePEM.count) bytes, over the \(ClientCertificate.maximumPEMSize)-byte limit")
        }
        guard let certificate = try OpenSSLCertificate.readPEM(certificatePEM).first else {
            throw JOSEError(.invalidPEM, "the certificate PEM text holds no CERTIFICATE block")
        }
        let publicKey = try certificate.publicKey()
        guard publicKey.isRSA else {
            throw JOSEError(.unsupportedCredentialKey, "the certificate's key is not an RSA key (client assertions are signed with RSA)")
        }
        let der = try certificate.derBytes()
        sha256Thumbprint = try der.withRawBytes { (bytes) throws(JOSEError) -> [UInt8] in try OpenSSLDigest.sha256.hash(bytes) }
        sha1Thumbprint = try der.withRawBytes { (bytes) throws(JOSEError) -> [UInt8] in try OpenSSLDigest.sha1.hash(bytes) }
        key = JSONWebKey(keyID: nil, keyType: .rsa, curve: nil, algorithm: nil, use: nil, keyOperations: nil, key: publicKey)
    }

    /// The certificate an assertion's header names: its `x5t#S256`, else its `x5t` (base64url,
    /// with or without the `=` padding MSAL for Python adds).
    ///
    /// - Throws: ``JOSEError`` when the assertion is malformed, its `alg` is not RS256 or PS256, or
    ///   its header names no certificate.
    package static func thumbprint(of assertion: String) throws(JOSEError) -> (sha256: [UInt8]?, sha1: [UInt8]?) {
        let jws = try parse(assertion)
        func decoded(_ name: String) throws(JOSEError) -> [UInt8]? {
            guard let value = jws.header.root[name] else { return nil }
            guard let text = value.string else { throw JOSEError(.invalidHeader, "header \(name) must be a string") }
            return try Base64URL.decode(text, padding: .acceptCanonical)
        }
        let sha256 = try decoded("x5t#S256")
        let sha1 = sha256 == nil ? try decoded("x5t") : nil
        guard sha256 != nil || sha1 != nil else {
            throw JOSEError(.invalidHeader, "the assertion's header names no certificate (no x5t#S256 or x5t)")
        }
        return (sha256, sha1)
    }

    /// Whether `thumbprint` (from ``thumbprint(of:)``) names this certificate.
    package func isNamed(by thumbprint: (sha256: [UInt8]?, sha1: [UInt8]?)) -> Bool {
        if let sha256 = thumbprint.sha256 { return sha256 == sha256Thumbprint }
        return thumbprint.sha1 == sha1Thumbprint
    }

    /// Checks the assertion's signature with this certificate's key and decodes it.
    ///
    /// - Throws: ``JOSEError/Code/invalidSignature`` when the signature does not verify; another
    ///   ``JOSEError`` for a malformed assertion or an `alg` other than RS256 and PS256.
    package func verify(_ assertion: String) throws(JOSEError) -> JWT {
        var assertion = assertion
        return try assertion.withUTF8Bytes { (utf8) throws(JOSEError) -> JWT in
            let jws = try Self.parse(utf8)
            let signingInput = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[0..<jws.secondDot])
            let valid = try jws.signature.withRawBytes { (signature) throws(JOSEError) -> Bool in
                try key.verify(signature: signature, over: signingInput, algorithm: jws.algorithm)
            }
            guard valid else {
                throw JOSEError(.invalidSignature, "the \(jws.algorithm.rawValue) signature does not verify with the certificate's key")
            }
            let claims = try JWT.decodeClaims(utf8, (jws.firstDot + 1)..<jws.secondDot)
            return JWT(header: jws.header, claims: claims, isSignatureVerified: true)
        }
    }

    private static func parse(_ assertion: String) throws(JOSEError) -> CompactJWS {
        var assertion = assertion
        return try assertion.withUTF8Bytes { (utf8) throws(JOSEError) -> CompactJWS in try parse(utf8) }
    }

    private static func parse(_ utf8: UnsafeBufferPointer<UInt8>) throws(JOSEError) -> CompactJWS {
        let jws = try CompactJWS(utf8: utf8, maximumSize: maximumAssertionSize)
        guard jws.algorithm == .rs256 || jws.algorithm == .ps256 else {
            throw JOSEError(.unsupportedAlgorithm, "a client assertion must be signed RS256 or PS256, not \(jws.algorithm.rawValue)")
        }
        return jws
    }
}
