import COpenSSL

/// An `EVP_MD_CTX` taken through `EVP_DigestVerifyInit` or `EVP_DigestSignInit` (and, for PS*,
/// the RSASSA-PSS settings) once, for one key and one algorithm, and then kept only as a
/// template: each operation copies it with `EVP_MD_CTX_copy_ex` into a fresh context and runs
/// `EVP_DigestVerify` or `EVP_DigestSign` on the copy.
///
/// Why: in OpenSSL 3 the init is the costliest step of an operation after the signature math
/// itself. It creates an `EVP_PKEY_CTX`, looks the provider's signature implementation up by
/// name (locks, string compares, parameter lookups) and sets it up: about 2 µs per call on the
/// benchmark machine, against under 0.2 µs for copying an initialized context (see
/// docs/performance.md). The copy starts from exactly the state a fresh init would produce, so
/// a verdict is the same, and a signature is one the same key would have made (an ECDSA
/// signature draws its own random nonce on each copy).
final class OpenSSLDigestTemplate: @unchecked Sendable {
    // @unchecked Sendable: after init the context is never used for an operation;
    // it is only the (const) source of EVP_MD_CTX_copy_ex, which reads it and
    // takes references on the key and algorithm objects with atomic counts, so
    // concurrent copies from several threads are safe.

    /// What the context was initialized for.
    enum Operation: Sendable {
        case sign
        case verify
    }

    /// The algorithm the template was initialized for.
    let algorithm: JWSAlgorithm
    /// The operation the template was initialized for.
    let operation: Operation
    private let context: OpenSSLDigestContext

    init(key: OpenSSLKey, algorithm: JWSAlgorithm, operation: Operation) throws(JOSEError) {
        let context = try OpenSSLDigestContext()
        try context.withContextPointer { (ctx) throws(JOSEError) in
            try key.initialize(ctx, algorithm: algorithm, forSigning: operation == .sign)
        }
        self.algorithm = algorithm
        self.operation = operation
        self.context = context
    }

    /// A new context in the state the init leaves, ready for one `EVP_DigestVerify` or `EVP_DigestSign`.
    func makeContext() throws(JOSEError) -> OpenSSLDigestContext {
        let copy = try OpenSSLDigestContext()
        let copied = copy.withContextPointer { out in
            context.withContextPointer { template in EVP_MD_CTX_copy_ex(out, template) }
        }
        guard copied == 1 else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "EVP_MD_CTX_copy_ex failed")
        }
        return copy
    }
}
