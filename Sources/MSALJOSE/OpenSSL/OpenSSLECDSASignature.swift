import COpenSSL

/// Owns one `ECDSA_SIG`, to convert between the JWS form (fixed-size R‖S) and
/// the DER form OpenSSL signs and verifies.
final class OpenSSLECDSASignature {
    private let pointer: OpaquePointer

    /// From JWS R‖S (both halves `coordinateSize` bytes).
    init(jwsSignature: UnsafeRawBufferPointer, coordinateSize: Int) throws(JOSEError) {
        guard let signature = ECDSA_SIG_new() else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "ECDSA_SIG_new failed")
        }
        let base = jwsSignature.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let r = BN_bin2bn(base, Int32(coordinateSize), nil)
        let s = BN_bin2bn(base + coordinateSize, Int32(coordinateSize), nil)
        // ECDSA_SIG_set0 takes ownership of r and s on success.
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            ECDSA_SIG_free(signature)
            throw OpenSSLErrorQueue.error(.cryptoFailure, "cannot build ECDSA signature")
        }
        self.pointer = signature
    }

    /// From DER, as produced by `EVP_DigestSign`.
    init(der: [UInt8]) throws(JOSEError) {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "cannot parse DER ECDSA signature")
        }
        self.pointer = parsed
    }

    deinit {
        ECDSA_SIG_free(pointer)
    }

    /// The DER encoding.
    func derBytes() throws(JOSEError) -> [UInt8] {
        let length = i2d_ECDSA_SIG(pointer, nil)
        guard length > 0 else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "cannot encode ECDSA signature")
        }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_ECDSA_SIG(pointer, &cursor)
        }
        guard written == length else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "cannot encode ECDSA signature")
        }
        return der
    }

    /// The JWS encoding R‖S, each half `coordinateSize` bytes.
    func jwsBytes(coordinateSize: Int) throws(JOSEError) -> [UInt8] {
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(pointer, &r, &s)
        var output = [UInt8](repeating: 0, count: coordinateSize * 2)
        let ok = output.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(r, buffer.baseAddress, Int32(coordinateSize)) == Int32(coordinateSize)
                && BN_bn2binpad(s, buffer.baseAddress! + coordinateSize, Int32(coordinateSize)) == Int32(coordinateSize)
        }
        guard ok else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "ECDSA signature does not fit the curve size")
        }
        return output
    }
}
