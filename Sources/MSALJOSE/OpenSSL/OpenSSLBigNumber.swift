import COpenSSL

/// Owns one `BIGNUM`.
final class OpenSSLBigNumber {
    private let pointer: OpaquePointer

    /// A big-endian unsigned integer.
    init(bigEndian bytes: [UInt8]) throws(JOSEError) {
        guard let pointer = BN_bin2bn(bytes, Int32(bytes.count), nil) else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "BN_bin2bn failed")
        }
        self.pointer = pointer
    }

    /// Takes ownership of a `BIGNUM` that OpenSSL allocated for the caller.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// The value as big-endian bytes, left-padded with zeros to `width` bytes (or minimal when `nil`).
    func bigEndianBytes(width: Int? = nil) -> [UInt8]? {
        let size = width ?? Int(shim_BN_num_bytes(pointer))
        var bytes = [UInt8](repeating: 0, count: size)
        guard BN_bn2binpad(pointer, &bytes, Int32(size)) == Int32(size) else { return nil }
        return bytes
    }

    deinit {
        BN_free(pointer)
    }

    func withBigNumberPointer<R, E: Error>(_ body: (OpaquePointer) throws(E) -> R) throws(E) -> R {
        try body(pointer)
    }
}
