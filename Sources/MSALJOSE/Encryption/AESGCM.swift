import COpenSSL

/// AES-256 in Galois/Counter Mode through OpenSSL (JOSE's `A256GCM`, RFC 7518 §5.3): authenticated
/// encryption with a 96-bit nonce and a 128-bit tag. Used to encrypt token cache documents at rest.
package enum AESGCM {
    /// The key size in bytes (AES-256).
    package static let keySize = 32
    /// The nonce size in bytes (96 bits, the size GCM is defined for without hashing the nonce).
    package static let nonceSize = 12
    /// The tag size in bytes (128 bits).
    package static let tagSize = 16

    /// A sealed message: the nonce, the ciphertext (as long as the plaintext) and the tag.
    package struct Box: Sendable, Equatable {
        package var nonce: [UInt8]
        package var ciphertext: [UInt8]
        package var tag: [UInt8]

        package init(nonce: [UInt8], ciphertext: [UInt8], tag: [UInt8]) {
            self.nonce = nonce
            self.ciphertext = ciphertext
            self.tag = tag
        }
    }

    /// Encrypts `plaintext` under `key` with a fresh random nonce, authenticating
    /// `authenticatedData` too (it is not encrypted, and `open` must be given the same).
    ///
    /// - Throws: ``JOSEError`` `invalidKey` for a key that is not 32 bytes; `cryptoFailure` when
    ///   OpenSSL fails (its error queue in the error).
    package static func seal(
        _ plaintext: [UInt8], key: [UInt8], authenticatedData: [UInt8] = []
    ) throws(JOSEError) -> Box {
        try checkKey(key)
        let nonce = try SecureRandom.bytes(count: nonceSize)
        let context = try OpenSSLCipherContext()
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: tagSize)
        try context.withContextPointer { (ctx) throws(JOSEError) in
            try start(ctx, key: key, nonce: nonce, encrypting: true)
            try feed(ctx, authenticatedData: authenticatedData)
            var written: Int32 = 0
            if !plaintext.isEmpty {
                let ok = ciphertext.withUnsafeMutableBufferPointer { out in
                    plaintext.withUnsafeBufferPointer { input in
                        EVP_EncryptUpdate(ctx, out.baseAddress, &written, input.baseAddress, Int32(input.count))
                    }
                }
                guard ok == 1, Int(written) == plaintext.count else {
                    throw OpenSSLErrorQueue.error(.cryptoFailure, "EVP_EncryptUpdate failed")
                }
            }
            var final: Int32 = 0
            var scratch = [UInt8](repeating: 0, count: 16)
            guard EVP_EncryptFinal_ex(ctx, &scratch, &final) == 1, final == 0 else {
                throw OpenSSLErrorQueue.error(.cryptoFailure, "EVP_EncryptFinal_ex failed")
            }
            let got = tag.withUnsafeMutableBytes { out in
                EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, Int32(tagSize), out.baseAddress)
            }
            guard got == 1 else {
                throw OpenSSLErrorQueue.error(.cryptoFailure, "reading the GCM tag failed")
            }
        }
        return Box(nonce: nonce, ciphertext: ciphertext, tag: tag)
    }

    /// Decrypts `box` under `key`, checking its tag over the ciphertext and `authenticatedData`.
    ///
    /// - Throws: ``JOSEError`` `invalidSignature` when the tag does not match (another key, other
    ///   authenticated data, or a changed nonce, ciphertext or tag); `invalidKey` for a key that is
    ///   not 32 bytes; `malformedToken` for a nonce or tag of the wrong size; `cryptoFailure` when
    ///   OpenSSL fails.
    package static func open(
        _ box: Box, key: [UInt8], authenticatedData: [UInt8] = []
    ) throws(JOSEError) -> [UInt8] {
        try checkKey(key)
        guard box.nonce.count == nonceSize, box.tag.count == tagSize else {
            throw JOSEError(.malformedToken, "The sealed data's nonce or tag has the wrong size")
        }
        let context = try OpenSSLCipherContext()
        var plaintext = [UInt8](repeating: 0, count: box.ciphertext.count)
        try context.withContextPointer { (ctx) throws(JOSEError) in
            try start(ctx, key: key, nonce: box.nonce, encrypting: false)
            try feed(ctx, authenticatedData: authenticatedData)
            var written: Int32 = 0
            if !box.ciphertext.isEmpty {
                let ok = plaintext.withUnsafeMutableBufferPointer { out in
                    box.ciphertext.withUnsafeBufferPointer { input in
                        EVP_DecryptUpdate(ctx, out.baseAddress, &written, input.baseAddress, Int32(input.count))
                    }
                }
                guard ok == 1, Int(written) == box.ciphertext.count else {
                    throw OpenSSLErrorQueue.error(.cryptoFailure, "EVP_DecryptUpdate failed")
                }
            }
            var tag = box.tag
            let set = tag.withUnsafeMutableBytes { bytes in
                EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, Int32(tagSize), bytes.baseAddress)
            }
            guard set == 1 else {
                throw OpenSSLErrorQueue.error(.cryptoFailure, "setting the GCM tag failed")
            }
            var final: Int32 = 0
            var scratch = [UInt8](repeating: 0, count: 16)
            guard EVP_DecryptFinal_ex(ctx, &scratch, &final) == 1 else {
                // The expected failure: the tag does not authenticate the data.
                OpenSSLErrorQueue.clear()
                throw JOSEError(.invalidSignature, "The sealed data does not authenticate under this key")
            }
        }
        return plaintext
    }

    private static func checkKey(_ key: [UInt8]) throws(JOSEError) {
        guard key.count == keySize else {
            throw JOSEError(.invalidKey, "An AES-256-GCM key is \(keySize) bytes, not \(key.count)")
        }
    }

    private static func start(_ ctx: OpaquePointer, key: [UInt8], nonce: [UInt8], encrypting: Bool) throws(JOSEError) {
        let cipher = EVP_aes_256_gcm()
        let initialised =
            encrypting
            ? EVP_EncryptInit_ex(ctx, cipher, nil, nil, nil) : EVP_DecryptInit_ex(ctx, cipher, nil, nil, nil)
        guard initialised == 1,
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, Int32(nonce.count), nil) == 1
        else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "initialising AES-256-GCM failed")
        }
        let keyed = key.withUnsafeBufferPointer { keyBytes in
            nonce.withUnsafeBufferPointer { nonceBytes in
                encrypting
                    ? EVP_EncryptInit_ex(ctx, nil, nil, keyBytes.baseAddress, nonceBytes.baseAddress)
                    : EVP_DecryptInit_ex(ctx, nil, nil, keyBytes.baseAddress, nonceBytes.baseAddress)
            }
        }
        guard keyed == 1 else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "setting the AES-256-GCM key and nonce failed")
        }
    }

    private static func feed(_ ctx: OpaquePointer, authenticatedData: [UInt8]) throws(JOSEError) {
        guard !authenticatedData.isEmpty else { return }
        var written: Int32 = 0
        // Authenticated data goes in with a null output buffer (the same call for both directions:
        // EVP_EncryptUpdate and EVP_DecryptUpdate both are EVP_CipherUpdate here).
        let ok = authenticatedData.withUnsafeBufferPointer { input in
            EVP_CipherUpdate(ctx, nil, &written, input.baseAddress, Int32(input.count))
        }
        guard ok == 1 else {
            throw OpenSSLErrorQueue.error(.cryptoFailure, "authenticating the additional data failed")
        }
    }
}
