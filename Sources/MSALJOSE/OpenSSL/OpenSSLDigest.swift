import COpenSSL

/// Owns one fetched `EVP_MD` (SHA-256/384/512). Fetching once avoids a provider
/// lookup on every signature operation.
final class OpenSSLDigest: @unchecked Sendable {
    // @unchecked Sendable: the EVP_MD is immutable after EVP_MD_fetch and OpenSSL 3
    // documents fetched algorithm objects as safe to share between threads.
    private let pointer: OpaquePointer
    /// Output size in bytes.
    let size: Int

    private init(name: String) {
        // A default-provider digest always exists in a working OpenSSL 3; failing here
        // means the library itself is broken, which no caller could handle.
        guard let pointer = EVP_MD_fetch(nil, name, nil) else {
            fatalError("OpenSSL cannot provide \(name): \(OpenSSLErrorQueue.drain())")
        }
        self.pointer = pointer
        self.size = Int(EVP_MD_get_size(pointer))
    }

    deinit {
        EVP_MD_free(pointer)
    }

    func withDigestPointer<R, E: Error>(_ body: (OpaquePointer) throws(E) -> R) throws(E) -> R {
        try body(pointer)
    }

    /// SHA-1: only for the `x5t` certificate thumbprint that ADFS and generic providers expect, never for signatures.
    static let sha1 = OpenSSLDigest(name: "SHA1")
    static let sha256 = OpenSSLDigest(name: "SHA256")
    static let sha384 = OpenSSLDigest(name: "SHA384")
    static let sha512 = OpenSSLDigest(name: "SHA512")

    /// One-shot digest of `bytes`.
    func hash(_ bytes: UnsafeRawBufferPointer) throws(JOSEError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = withDigestPointer { md in
            output.withUnsafeMutableBufferPointer { out in
                EVP_Digest(bytes.baseAddress, bytes.count, out.baseAddress, &length, md, nil)
            }
        }
        guard ok == 1 else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "EVP_Digest failed")
        }
        return Array(output.prefix(Int(length)))
    }
}
