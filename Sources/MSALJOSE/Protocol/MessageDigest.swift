import COpenSSL

/// SHA-256 for the other modules (OpenSSL's, like every primitive here), and a comparison whose
/// time does not depend on where two digests differ.
package enum MessageDigest {
    /// SHA-256 of `bytes`.
    ///
    /// - Throws: ``JOSEError/Code/cryptoFailure`` if OpenSSL fails.
    package static func sha256(_ bytes: [UInt8]) throws(JOSEError) -> [UInt8] {
        try bytes.withRawBytes { (buffer) throws(JOSEError) -> [UInt8] in try OpenSSLDigest.sha256.hash(buffer) }
    }

    /// SHA-256 of bytes in place (a string's UTF-8, without copying it to an array first).
    package static func sha256(_ bytes: UnsafeRawBufferPointer) throws(JOSEError) -> [UInt8] {
        try OpenSSLDigest.sha256.hash(bytes)
    }

    /// Whether `a` and `b` are equal, in time that depends only on their lengths (`CRYPTO_memcmp`).
    /// For secrets, compare their digests so that the lengths are equal too.
    package static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in CRYPTO_memcmp(left.baseAddress, right.baseAddress, a.count) == 0 }
        }
    }
}
