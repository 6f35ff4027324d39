import COpenSSL

/// Owns one `EVP_PKEY` (public, or a key pair for signing).
///
/// Keys are built from JWK components with `EVP_PKEY_fromdata` and checked once
/// on import; after that they are only read.
final class OpenSSLKey: @unchecked Sendable {
    // @unchecked Sendable: the EVP_PKEY is never mutated after construction, and
    // OpenSSL 3 allows one key to be used by concurrent sign/verify operations,
    // each with its own EVP_MD_CTX.
    private let pointer: OpaquePointer

    /// Takes ownership of `pointer`, which `deinit` frees.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    func withKeyPointer<R, E: Error>(_ body: (OpaquePointer) throws(E) -> R) throws(E) -> R {
        try body(pointer)
    }

    /// Size in bits of the RSA modulus or EC group order.
    var bits: Int {
        Int(EVP_PKEY_get_bits(pointer))
    }

    /// Maximum signature size in bytes (the modulus length for RSA).
    var maximumSignatureSize: Int {
        Int(EVP_PKEY_get_size(pointer))
    }

    private static func fromData(algorithm: String, selection: Int32, _ values: [OpenSSLParameters.Value]) throws(JOSEError) -> OpenSSLKey {
        let parameters = try OpenSSLParameters(values)
        let context = try OpenSSLKeyContext(algorithm: algorithm)
        var created: OpaquePointer?
        let ok = context.withContextPointer { ctx in
            parameters.withParametersPointer { params in
                guard EVP_PKEY_fromdata_init(ctx) == 1 else { return Int32(0) }
                return EVP_PKEY_fromdata(ctx, &created, selection, params)
            }
        }
        guard ok == 1, let created else {
            throw OpenSSLErrorQueue.error(.invalidKey, "OpenSSL rejected the \(algorithm) key material")
        }
        return OpenSSLKey(taking: created)
    }

    /// An RSA public key from its big-endian modulus and exponent.
    static func rsaPublicKey(modulus: [UInt8], exponent: [UInt8]) throws(JOSEError) -> OpenSSLKey {
        try fromData(algorithm: "RSA", selection: shim_EVP_PKEY_PUBLIC_KEY(), [.bigNumber("n", modulus), .bigNumber("e", exponent)])
    }

    /// An EC public key from affine coordinates, checked to lie on the curve.
    static func ecPublicKey(curve: JSONWebKey.Curve, x: [UInt8], y: [UInt8]) throws(JOSEError) -> OpenSSLKey {
        let point = [0x04] + x + y
        let key = try fromData(
            algorithm: "EC", selection: shim_EVP_PKEY_PUBLIC_KEY(), [.utf8("group", curve.openSSLGroupName), .octets("pub", point)])
        let context = try OpenSSLKeyContext(key: key)
        // The quick check (on the curve, not the point at infinity) is the whole check for the
        // NIST curves JOSE uses: their cofactor is 1, so the full check's multiplication by the
        // group order adds nothing, and it cost a DPoP proof's verification a fifth of its time.
        let valid = context.withContextPointer { EVP_PKEY_public_check_quick($0) }
        guard valid == 1 else {
            throw OpenSSLErrorQueue.error(.invalidKey, "EC point is not on \(curve.rawValue)")
        }
        return key
    }

    /// Generates a key pair: RSA of `bits`, or EC on `curve`.
    static func generate(rsaBits bits: Int) throws(JOSEError) -> OpenSSLKey {
        let context = try OpenSSLKeyContext(algorithm: "RSA")
        var created: OpaquePointer?
        let ok = context.withContextPointer { ctx in
            guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, Int32(bits)) == 1 else { return Int32(0) }
            return EVP_PKEY_generate(ctx, &created)
        }
        guard ok == 1, let created else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "RSA key generation failed")
        }
        return OpenSSLKey(taking: created)
    }

    /// Generates an EC key pair on `curve`.
    static func generate(curve: JSONWebKey.Curve) throws(JOSEError) -> OpenSSLKey {
        let context = try OpenSSLKeyContext(algorithm: "EC")
        var created: OpaquePointer?
        let ok = context.withContextPointer { ctx in
            guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_group_name(ctx, curve.openSSLGroupName) == 1 else { return Int32(0) }
            return EVP_PKEY_generate(ctx, &created)
        }
        guard ok == 1, let created else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "EC key generation failed")
        }
        return OpenSSLKey(taking: created)
    }

    /// A big-number parameter ("n", "e", "qx", "qy") as big-endian bytes, left-padded to `width` when given.
    func bigNumberParameter(_ name: String, width: Int? = nil) throws(JOSEError) -> [UInt8] {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pointer, name, &number) == 1, let number else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "cannot read key parameter \(name)")
        }
        guard let bytes = OpenSSLBigNumber(taking: number).bigEndianBytes(width: width) else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "key parameter \(name) does not fit \(width ?? 0) bytes")
        }
        return bytes
    }
}
