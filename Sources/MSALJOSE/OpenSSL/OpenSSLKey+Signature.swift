import COpenSSL

extension OpenSSLKey {
    /// Verifies a JWS signature over `message`.
    ///
    /// Returns `false` for any signature that does not verify, including one of
    /// the wrong length, R or S out of range, or an RSA signature ≥ n. Throws only
    /// when OpenSSL cannot run the operation at all.
    ///
    /// `template`, when it was made from this key for verifying with `algorithm`, replaces the
    /// per-call `EVP_DigestVerifyInit` with a copy of its context (same verdict, less work).
    func verify(
        signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer, algorithm: JWSAlgorithm, template: OpenSSLDigestTemplate? = nil
    ) throws(JOSEError) -> Bool {
        let template = template?.algorithm == algorithm && template?.operation == .verify ? template : nil
        switch algorithm.keyType {
        case .rsa:
            guard signature.count == maximumSignatureSize else { return false }
            return try digestVerify(signature: signature, message: message, algorithm: algorithm, template: template)
        case .ellipticCurve:
            let coordinateSize = algorithm.curve!.coordinateSize
            guard signature.count == coordinateSize * 2 else { return false }
            let der = try OpenSSLECDSASignature(jwsSignature: signature, coordinateSize: coordinateSize).derBytes()
            return try der.withRawBytes { (derBuffer) throws(JOSEError) -> Bool in
                try digestVerify(signature: derBuffer, message: message, algorithm: algorithm, template: template)
            }
        }
    }

    private func digestVerify(
        signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer, algorithm: JWSAlgorithm, template: OpenSSLDigestTemplate?
    ) throws(JOSEError) -> Bool {
        let context: OpenSSLDigestContext
        if let template {
            context = try template.makeContext()
        } else {
            context = try OpenSSLDigestContext()
        }
        let result = try context.withContextPointer { (ctx) throws(JOSEError) -> Int32 in
            if template == nil {
                try self.initialize(ctx, algorithm: algorithm, forSigning: false)
            }
            return EVP_DigestVerify(
                ctx,
                signature.baseAddress?.assumingMemoryBound(to: UInt8.self), signature.count,
                message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count)
        }
        if result != 1 {
            // A failed verification queues "bad signature" errors; they are the verdict, not a fault.
            OpenSSLErrorQueue.clear()
        }
        return result == 1
    }

    /// Produces a JWS signature (R‖S for ECDSA) over `message`. The key must hold a private key.
    ///
    /// `template`, when it was made from this key for signing with `algorithm`, replaces the
    /// per-call `EVP_DigestSignInit` with a copy of its context.
    func sign(message: UnsafeRawBufferPointer, algorithm: JWSAlgorithm, template: OpenSSLDigestTemplate? = nil) throws(JOSEError) -> [UInt8]
    {
        let template = template?.algorithm == algorithm && template?.operation == .sign ? template : nil
        let context: OpenSSLDigestContext
        if let template {
            context = try template.makeContext()
        } else {
            context = try OpenSSLDigestContext()
        }
        let der = try context.withContextPointer { (ctx) throws(JOSEError) -> [UInt8] in
            if template == nil {
                try self.initialize(ctx, algorithm: algorithm, forSigning: true)
            }
            let input = message.baseAddress?.assumingMemoryBound(to: UInt8.self)
            // One call into a buffer of the key's largest signature, instead of asking the size first.
            let maximum = withKeyPointer { EVP_PKEY_get_size($0) }
            guard maximum > 0 else { throw OpenSSLErrorQueue.error(.cryptoFailure, "the key has no signature size") }
            var output = [UInt8](repeating: 0, count: Int(maximum))
            var length = output.count
            guard EVP_DigestSign(ctx, &output, &length, input, message.count) == 1, length <= output.count else {
                throw OpenSSLErrorQueue.error(.cryptoFailure, "EVP_DigestSign failed")
            }
            output.removeLast(output.count - length)
            return output
        }
        switch algorithm.keyType {
        case .rsa:
            return der
        case .ellipticCurve:
            return try OpenSSLECDSASignature(der: der).jwsBytes(coordinateSize: algorithm.curve!.coordinateSize)
        }
    }

    /// Runs `EVP_DigestSignInit`/`EVP_DigestVerifyInit` on `ctx` for this key, plus the PSS settings for PS*.
    func initialize(_ ctx: OpaquePointer, algorithm: JWSAlgorithm, forSigning: Bool) throws(JOSEError) {
        var keyContext: OpaquePointer?
        let initialized = algorithm.digest.withDigestPointer { md in
            withKeyPointer { key in
                forSigning
                    ? EVP_DigestSignInit(ctx, &keyContext, md, nil, key)
                    : EVP_DigestVerifyInit(ctx, &keyContext, md, nil, key)
            }
        }
        guard initialized == 1, let keyContext else {
            throw OpenSSLErrorQueue.error(
                .cryptoFailure, "cannot initialize \(algorithm.rawValue) \(forSigning ? "signing" : "verification")")
        }
        if algorithm.usesPSS {
            // RFC 7518 §3.5: MGF1 with the same hash, salt as long as the hash output.
            let configured = algorithm.digest.withDigestPointer { md in
                EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING) == 1
                    && EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, RSA_PSS_SALTLEN_DIGEST) == 1
                    && EVP_PKEY_CTX_set_rsa_mgf1_md(keyContext, md) == 1
            }
            guard configured else {
                throw OpenSSLErrorQueue.error(.cryptoFailure, "cannot configure RSASSA-PSS")
            }
        }
    }
}
