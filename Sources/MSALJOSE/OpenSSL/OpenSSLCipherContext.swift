import COpenSSL

/// Owns one `EVP_CIPHER_CTX` for a single encryption or decryption.
final class OpenSSLCipherContext {
    private let pointer: OpaquePointer

    init() throws(JOSEError) {
        guard let pointer = EVP_CIPHER_CTX_new() else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "EVP_CIPHER_CTX_new failed")
        }
        self.pointer = pointer
    }

    deinit {
        // Also clears the key schedule the context holds.
        EVP_CIPHER_CTX_free(pointer)
    }

    func withContextPointer<R, E: Error>(_ body: (OpaquePointer) throws(E) -> R) throws(E) -> R {
        try body(pointer)
    }
}
