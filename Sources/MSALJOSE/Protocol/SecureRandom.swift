import COpenSSL

/// Random values from OpenSSL's CSPRNG (`RAND_bytes`).
public enum SecureRandom {
    /// `count` random bytes.
    public static func bytes(count: Int) throws(JOSEError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        guard count == 0 || RAND_bytes(&output, Int32(count)) == 1 else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "RAND_bytes failed")
        }
        return output
    }

    /// Fills `buffer` with random bytes, without allocating (for values made on every call, such as
    /// correlation ids).
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(JOSEError) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        guard RAND_bytes(base.assumingMemoryBound(to: UInt8.self), Int32(buffer.count)) == 1 else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "RAND_bytes failed")
        }
    }

    /// A random value for the OAuth `state` or OpenID Connect `nonce`:
    /// 32 bytes (256 bits) as 43 base64url characters.
    public static func urlSafeToken() throws(JOSEError) -> String {
        Base64URL.encode(try bytes(count: 32))
    }
}
