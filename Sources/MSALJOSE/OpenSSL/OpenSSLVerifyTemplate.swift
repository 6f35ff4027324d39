import COpenSSL

/// An `EVP_MD_CTX` taken through `EVP_DigestVerifyInit` (and, for PS*, the
/// RSASSA-PSS settings) once, for one key and one algorithm, and then kept only
/// as a template: each verification copies it with `EVP_MD_CTX_copy_ex` into a
/// fresh context and runs `EVP_DigestVerify` on the copy.
///
/// Why: in OpenSSL 3 `EVP_DigestVerifyInit` is the costliest step of a
/// verification after the signature math itself. It creates an `EVP_PKEY_CTX`,
/// looks the provider's signature implementation up by name and sets it up:
/// about 2 µs per call on the benchmark machine, against under 0.2 µs for
/// copying an initialized context (see docs/performance.md). The copy starts
/// from exactly the state a fresh init would produce, so the verdict is the same.
final class OpenSSLVerifyTemplate: @unchecked Sendable {
    // @unchecked Sendable: after init the context is never used for an operation;
    // it is only the (const) source of EVP_MD_CTX_copy_ex, which reads it and
    // takes references on the key and algorithm objects with atomic counts, so
    // concurrent copies from several threads are safe.

    /// The algorithm the template was initialized for.
    let algorithm: JWSAlgorithm
    private let context: OpenSSLDigestContext

    init(key: OpenSSLKey, algorithm: JWSAlgorithm) throws(JOSEError) {
        let context = try OpenSSLDigestContext()
        try context.withContextPointer { (ctx) throws(JOSEError) in
            try key.initialize(ctx, algorithm: algorithm, forSigning: false)
        }
        self.algorithm = algorithm
        self.context = context
    }

    /// A new context in the state `EVP_DigestVerifyInit` leaves, ready for one `EVP_DigestVerify`.
    func makeVerifyContext() throws(JOSEError) -> OpenSSLDigestContext {
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
