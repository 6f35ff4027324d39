import COpenSSL

/// The credential as a TLS client identity (RFC 8705 mutual TLS), for the TLS stacks that take
/// the key and the chain as PEM text: libcurl (`CURLOPT_SSLKEY_BLOB`, `CURLOPT_SSLCERT_BLOB`) and
/// SwiftNIO SSL.
extension ClientCertificate {
    /// The private key as an unencrypted PKCS#8 `PRIVATE KEY` block and the chain as `CERTIFICATE`
    /// blocks, the key's own certificate first. The caller hands the key text to the TLS stack and
    /// overwrites its copy at once (``wipe(_:)``); it is never written to a file.
    package func tlsIdentityPEM() throws(JOSEError) -> (privateKeyPEM: [UInt8], certificateChainPEM: [UInt8]) {
        var chainPEM: [UInt8] = []
        for der in chain {
            chainPEM += Array("-----BEGIN CERTIFICATE-----\n".utf8)
            let base64 = Array(Base64URL.encodeStandard(der).utf8)
            var start = 0
            while start < base64.count {
                let end = min(start + 64, base64.count)
                chainPEM += base64[start..<end]
                chainPEM.append(0x0A)
                start = end
            }
            chainPEM += Array("-----END CERTIFICATE-----\n".utf8)
        }
        return (try key.privateKeyPEM(), chainPEM)
    }

    /// Overwrites `bytes` with zeros (the caller's copy of ``tlsIdentityPEM()``'s key text).
    package static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            // OpenSSL's cleanse, which the optimizer does not remove as a dead store.
            OPENSSL_cleanse(base, buffer.count)
        }
    }
}
