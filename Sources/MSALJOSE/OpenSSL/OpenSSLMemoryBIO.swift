import COpenSSL

/// Owns one memory `BIO`: a copy of some bytes for OpenSSL's PEM readers, or an empty buffer its
/// PEM writers fill.
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

    /// An empty BIO to write into.
    init() throws(JOSEError) {
        guard let pointer = BIO_new(BIO_s_mem()) else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "cannot allocate a memory BIO")
        }
        self.pointer = pointer
    }

    deinit {
        BIO_free(pointer)
    }

    /// Everything written into the BIO and not yet read.
    func readAll() -> [UInt8] {
        let pending = Int(BIO_ctrl_pending(pointer))
        guard pending > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: pending)
        let read = bytes.withUnsafeMutableBytes { BIO_read(pointer, $0.baseAddress, Int32(pending)) }
        return Array(bytes.prefix(max(0, Int(read))))
    }

    func withBIOPointer<R, E: Error>(_ body: (OpaquePointer) throws(E) -> R) throws(E) -> R {
        try body(pointer)
    }
}
