import COpenSSL

extension OpenSSLKey {
    /// The private key of a PEM text (`PRIVATE KEY`, `RSA PRIVATE KEY`, `EC PRIVATE KEY` or
    /// `ENCRYPTED PRIVATE KEY`), decrypted with `password` when it is encrypted.
    ///
    /// OpenSSL never prompts: without a password an encrypted key fails to read.
    static func readPrivateKeyPEM(_ pem: [UInt8], password: [UInt8]?) throws(JOSEError) -> OpenSSLKey {
        OpenSSLErrorQueue.clear()
        let bio = try OpenSSLMemoryBIO(copying: pem)
        // OpenSSL asks for the password through this callback, passing `user` back: a pointer to
        // the password's bytes, or nil when there is none.
        let callback: @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 = {
            buffer, size, _, user in
            guard let buffer, let user else { return -1 }
            let password = user.assumingMemoryBound(to: [UInt8].self).pointee
            guard password.count <= Int(size) else { return -1 }
            password.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress { UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: bytes.count) }
            }
            return Int32(password.count)
        }
        var passwordBytes = password ?? []
        let read = bio.withBIOPointer { bio in
            withUnsafeMutablePointer(to: &passwordBytes) { passwordPointer in
                PEM_read_bio_PrivateKey(bio, nil, callback, password == nil ? nil : UnsafeMutableRawPointer(passwordPointer))
            }
        }
        guard let read else {
            // `ENCRYPTED PRIVATE KEY` (PKCS#8) or `Proc-Type: 4,ENCRYPTED` (traditional).
            let marker = Array("ENCRYPTED".utf8)
            let encrypted = pem.indices.contains { pem[$0...].starts(with: marker) }
            throw OpenSSLErrorQueue.error(
                .invalidPEM,
                encrypted
                    ? (password == nil
                        ? "the private key is encrypted and no password was given"
                        : "the private key cannot be decrypted with the password given")
                    : "the PEM text holds no readable private key")
        }
        return OpenSSLKey(taking: read)
    }

    /// Whether this is an RSA key (not RSA-PSS-only, EC or another type).
    var isRSA: Bool {
        withKeyPointer { EVP_PKEY_is_a($0, "RSA") } == 1
    }

    /// Whether this is an EC key.
    var isEC: Bool {
        withKeyPointer { EVP_PKEY_is_a($0, "EC") } == 1
    }

    /// The private key as an unencrypted PKCS#8 `PRIVATE KEY` PEM block.
    func privateKeyPEM() throws(JOSEError) -> [UInt8] {
        let bio = try OpenSSLMemoryBIO()
        let written = withKeyPointer { key in
            bio.withBIOPointer { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) }
        }
        guard written == 1 else { throw OpenSSLErrorQueue.error(.cryptoFailure, "cannot write the private key as PEM") }
        return bio.readAll()
    }
}
