import COpenSSL

/// Owns one `EVP_PKEY_CTX` (used for key import, key generation and key checks).
final class OpenSSLKeyContext {
    private let pointer: OpaquePointer

    /// A context for the algorithm named `name` ("RSA", "EC").
    init(algorithm name: String) throws(JOSEError) {
        guard let pointer = EVP_PKEY_CTX_new_from_name(nil, name, nil) else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "EVP_PKEY_CTX_new_from_name(\(name)) failed")
        }
        self.pointer = pointer
    }

    /// A context for operations on an existing key.
    init(key: OpenSSLKey) throws(JOSEError) {
        let created = key.withKeyPointer { EVP_PKEY_CTX_new_from_pkey(nil, $0, nil) }
        guard let created else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "EVP_PKEY_CTX_new_from_pkey failed")
        }
        self.pointer = created
    }

    deinit {
        EVP_PKEY_CTX_free(pointer)
    }

    func withContextPointer<R, E: Error>(_ body: (OpaquePointer) throws(E) -> R) throws(E) -> R {
        try body(pointer)
    }
}
