import COpenSSL

/// Owns one memory `BIO` holding a copy of some bytes, for OpenSSL's PEM readers.
final class OpenSSLMemoryBIO {
    private let pointer: OpaquePointer

    /// A BIO that reads a copy of `bytes`.
    init(copying bytes: [UInt8]) throws(JOSEError) {
        guard let pointer = BIO_new(BIO_s_mem()) else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "cannot allocate a memory BIO")
        }
        self.pointer = pointer
        let written = bytes.withUnsafeBytes { BIO_write(pointer, $0.baseAddress, Int32($0.count)) }
        guard bytes.isEmpty || written == Int32(bytes.count) else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "cannot fill a memory BIO")
        }
    }

    deinit {
        BIO_free(pointer)
    }

    func withBIOPointer<R, E: Error>(_ body: (OpaquePointer) throws(E) -> R) throws(E) -> R {
        try body(pointer)
    }
}
