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

    /// A new self-signed certificate for `key` (SHA-256, version 3, a random 63-bit serial),
    /// valid from one hour ago for `days` days, subject and issuer `CN=commonName`.
    static func selfSigned(key: OpenSSLKey, commonName: String, days: Int) throws(JOSEError) -> OpenSSLCertificate {
        OpenSSLErrorQueue.clear()
        guard let pointer = X509_new() else { throw OpenSSLErrorQueue.error(.cryptoFailure, "cannot allocate a certificate") }
        let certificate = OpenSSLCertificate(taking: pointer)
        var serial = try SecureRandom.bytes(count: 8)
        serial[0] &= 0x7F
        let serialNumber = serial.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let name = Array(commonName.utf8)
        let built = key.withKeyPointer { key -> Bool in
            guard X509_set_version(pointer, 2) == 1,
                ASN1_INTEGER_set_uint64(X509_get_serialNumber(pointer), serialNumber) == 1,
                X509_gmtime_adj(X509_getm_notBefore(pointer), -3600) != nil,
                X509_gmtime_adj(X509_getm_notAfter(pointer), Int(days) * 86_400) != nil,
                X509_set_pubkey(pointer, key) == 1,
                let subject = X509_get_subject_name(pointer),
                X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, name, Int32(name.count), -1, 0) == 1,
                X509_set_issuer_name(pointer, subject) == 1
            else { return false }
            return X509_sign(pointer, key, EVP_sha256()) > 0
        }
        guard built else { throw OpenSSLErrorQueue.error(.cryptoFailure, "cannot make the self-signed certificate") }
        return certificate
    }

    /// The certificate as one PEM `CERTIFICATE` block.
    func pemText() throws(JOSEError) -> [UInt8] {
        let bio = try OpenSSLMemoryBIO()
        guard bio.withBIOPointer({ PEM_write_bio_X509($0, pointer) }) == 1 else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "cannot write the certificate as PEM")
        }
        return bio.readAll()
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

    /// The certificate's public key, owned by the returned object.
    func publicKey() throws(JOSEError) -> OpenSSLKey {
        OpenSSLErrorQueue.clear()
        // X509_get_pubkey takes a reference of its own, which the OpenSSLKey frees.
        guard let key = X509_get_pubkey(pointer) else {
            throw OpenSSLErrorQueue.error(.invalidKey, "the certificate's public key cannot be read")
        }
        return OpenSSLKey(taking: key)
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
