import COpenSSL

/// Owns one `EVP_MD_CTX` for a single sign or verify operation.
final class OpenSSLDigestContext {
    private let pointer: OpaquePointer

    init() throws(JOSEError) {
        guard let pointer = EVP_MD_CTX_new() else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "EVP_MD_CTX_new failed")
        }
        self.pointer = pointer
    }

    deinit {
        EVP_MD_CTX_free(pointer)
    }

    func withContextPointer<R, E: Error>(_ body: (OpaquePointer) throws(E) -> R) throws(E) -> R {
        try body(pointer)
    }
}
