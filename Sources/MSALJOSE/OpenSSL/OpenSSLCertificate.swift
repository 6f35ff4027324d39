import COpenSSL

/// Owns one X.509 certificate (`X509`), read from PEM.
///
/// Only what a client credential needs is read from it: its DER encoding (for thumbprints and
/// `x5c`) and whether its public key is a given key.
final class OpenSSLCertificate: @unchecked Sendable {
    // @unchecked Sendable: the X509 is never mutated after it is read, and OpenSSL 3 allows
    // concurrent reads of one certificate.
    private let pointer: OpaquePointer

    private init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        X509_free(pointer)
    }

    func withCertificatePointer<R, E: Error>(_ body: (OpaquePointer) throws(E) -> R) throws(E) -> R {
        try body(pointer)
    }

    /// Every `CERTIFICATE` block of `pem`, in order (at most `limit`). Text between blocks is
    /// ignored, as OpenSSL's PEM reader does; a damaged block fails the whole read.
    static func readPEM(_ pem: [UInt8], limit: Int = 16) throws(JOSEError) -> [OpenSSLCertificate] {
        OpenSSLErrorQueue.clear()
        let bio = try OpenSSLMemoryBIO(copying: pem)
        var certificates: [OpenSSLCertificate] = []
        while true {
            guard let read = bio.withBIOPointer({ PEM_read_bio_X509($0, nil, nil, nil) }) else {
                // The end of the input shows as "no start line"; anything else is damage.
                if shim_ERR_is_PEM_no_start_line(ERR_peek_last_error()) != 0 {
                    OpenSSLErrorQueue.clear()
                    break
                }
                throw OpenSSLErrorQueue.error(.invalidPEM, "certificate \(certificates.count + 1) of the PEM text cannot be read")
            }
            let certificate = OpenSSLCertificate(taking: read)
            guard certificates.count < limit else {
                throw JOSEError(.limitExceeded, "the PEM text holds more than \(limit) certificates")
            }
            certificates.append(certificate)
        }
        return certificates
    }

    /// The certificate's DER encoding.
    func derBytes() throws(JOSEError) -> [UInt8] {
        let length = i2d_X509(pointer, nil)
        guard length > 0 else { throw OpenSSLErrorQueue.error(.cryptoFailure, "cannot encode the certificate") }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_X509(pointer, &cursor)
        }
        guard written == length else { throw OpenSSLErrorQueue.error(.cryptoFailure, "cannot encode the certificate") }
        return bytes
    }

    /// Whether the certificate's public key is the public half of `key`.
    func certifies(_ key: OpenSSLKey) -> Bool {
        guard let publicKey = X509_get0_pubkey(pointer) else {
            OpenSSLErrorQueue.clear()
            return false
        }
        let equal = key.withKeyPointer { EVP_PKEY_eq(publicKey, $0) }
        OpenSSLErrorQueue.clear()
        return equal == 1
    }
}
