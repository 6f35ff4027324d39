import CBaselineOpenSSL
import MSALJOSE

// The lower bound for ID-token verification through OpenSSL 3: only the
// EVP_DigestVerify call sequence that any EVP-based verifier must make per token,
// with everything else (key loading, base64url, R‖S→DER) done once beforehand.
// Same ownership style as the SDK: each OpenSSL object is owned by a final
// class that frees it in deinit and lends its pointer only inside a closure.

/// Owns one public `EVP_PKEY`, loaded from a SubjectPublicKeyInfo PEM.
public final class BaselinePublicKey {
    private let pointer: OpaquePointer

    /// Reads the key from `pem`; stops the run if OpenSSL cannot read it.
    public init(pem: String) {
        let bytes = Array(pem.utf8)
        let key: OpaquePointer? = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        guard let key else {
            fatalError("OpenSSL cannot read the public key PEM: \(BaselineErrors.drain())")
        }
        pointer = key
    }

    /// The public half of the PKCS#8 PEM private key `privateKeyPEM`, as a key holding only the
    /// public part (what a verifier has); stops the run if OpenSSL cannot read it.
    public init(publicHalfOf privateKeyPEM: [UInt8]) {
        let pair = BaselinePrivateKey(pem: privateKeyPEM)
        let spki: [UInt8] = pair.withKeyPointer { key in
            let length = i2d_PUBKEY(key, nil)
            guard length > 0 else { fatalError("i2d_PUBKEY: \(BaselineErrors.drain())") }
            var der = [UInt8](repeating: 0, count: Int(length))
            der.withUnsafeMutableBufferPointer { buffer in
                var cursor = buffer.baseAddress
                _ = i2d_PUBKEY(key, &cursor)
            }
            return der
        }
        let key: OpaquePointer? = spki.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let key else { fatalError("d2i_PUBKEY: \(BaselineErrors.drain())") }
        pointer = key
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// Lends the `EVP_PKEY` pointer to `body`; it must not be kept beyond the call.
    public func withKeyPointer<R>(_ body: (OpaquePointer) throws -> R) rethrows -> R {
        try body(pointer)
    }
}

/// Owns one fetched `EVP_MD`.
public final class BaselineDigest {
    private let pointer: OpaquePointer

    /// Fetches the digest called `name` (for example "SHA256"); stops the run if OpenSSL has none.
    public init(name: String) {
        guard let md = EVP_MD_fetch(nil, name, nil) else {
            fatalError("OpenSSL cannot fetch \(name): \(BaselineErrors.drain())")
        }
        pointer = md
    }

    deinit {
        EVP_MD_free(pointer)
    }

    /// Lends the `EVP_MD` pointer to `body`; it must not be kept beyond the call.
    public func withDigestPointer<R>(_ body: (OpaquePointer) throws -> R) rethrows -> R {
        try body(pointer)
    }
}

/// OpenSSL's thread-local error queue, for failure messages.
public enum BaselineErrors {
    /// Takes every queued OpenSSL error off the queue and returns its message, oldest first.
    public static func drain() -> [String] {
        var messages: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages
    }
}

/// The verification inputs, prepared once.
public struct BaselineInputs {
    /// The sample's public key.
    public let key: BaselinePublicKey
    /// SHA-256, fetched once.
    public let digest: BaselineDigest
    /// `header.payload` as ASCII.
    public let message: [UInt8]
    /// The signature as OpenSSL verifies it: PKCS#1 v1.5 bytes for RSA, DER for ECDSA.
    public let signature: [UInt8]

    /// Loads `sample`'s key, fetches SHA-256 and prepares its signing input and signature; stops the
    /// run if the signature is not base64url or the algorithm is neither RS256 nor ES256.
    public init(_ sample: SampleCase) {
        key = BaselinePublicKey(pem: sample.publicKeyPEM)
        digest = BaselineDigest(name: "SHA256")
        message = sample.signingInput
        guard let raw = try? Base64URL.decode(bytes: sample.segments.signature) else {
            fatalError("sample signature is not base64url")
        }
        switch sample.algorithm {
        case "RS256":
            signature = raw
        case "ES256":
            signature = Self.derFromJWS(raw, coordinateSize: 32)
        default:
            fatalError("no baseline for \(sample.algorithm)")
        }
    }

    /// The inputs of a compact JWS `jws` (ES256: R‖S becomes DER here, once) with `key`: its
    /// signing input (`header.payload`) and its signature; stops the run if `jws` is not compact.
    public init(jws: String, algorithm: String, key: BaselinePublicKey) {
        let utf8 = Array(jws.utf8)
        guard let secondDot = utf8.lastIndex(of: UInt8(ascii: ".")),
            let raw = try? Base64URL.decode(bytes: utf8[(secondDot + 1)...])
        else {
            fatalError("not a compact JWS with a base64url signature")
        }
        self.key = key
        digest = BaselineDigest(name: "SHA256")
        message = Array(utf8[..<secondDot])
        switch algorithm {
        case "RS256": signature = raw
        case "ES256": signature = Self.derFromJWS(raw, coordinateSize: 32)
        default: fatalError("no baseline for \(algorithm)")
        }
    }

    /// JWS R‖S → DER `ECDSA-Sig-Value`, done once outside the measured loop.
    private static func derFromJWS(_ rs: [UInt8], coordinateSize: Int) -> [UInt8] {
        precondition(rs.count == coordinateSize * 2)
        guard let sig = ECDSA_SIG_new() else { fatalError("ECDSA_SIG_new failed") }
        defer { ECDSA_SIG_free(sig) }
        let r = BN_bin2bn(rs, Int32(coordinateSize), nil)
        let s = rs.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + coordinateSize, Int32(coordinateSize), nil) }
        guard let r, let s, ECDSA_SIG_set0(sig, r, s) == 1 else { fatalError("ECDSA_SIG_set0 failed") }
        let length = i2d_ECDSA_SIG(sig, nil)
        var der = [UInt8](repeating: 0, count: Int(length))
        der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            _ = i2d_ECDSA_SIG(sig, &cursor)
        }
        return der
    }

    /// One verification exactly as the baseline measures it: new context,
    /// DigestVerifyInit with the pre-fetched SHA-256, DigestVerify, free.
    @inline(__always)
    public static func verify(
        key: OpaquePointer, md: OpaquePointer,
        message: UnsafeBufferPointer<UInt8>, signature: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        guard let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, md, nil, key) == 1 else {
            ERR_clear_error()
            return false
        }
        let result = EVP_DigestVerify(ctx, signature.baseAddress, signature.count, message.baseAddress, message.count)
        if result != 1 { ERR_clear_error() }
        return result == 1
    }

    /// Runs `iterations` verifications with all pointers taken once; returns how many verified.
    @discardableResult
    public func run(iterations: Range<Int>) -> Int {
        key.withKeyPointer { key in
            digest.withDigestPointer { md in
                message.withUnsafeBufferPointer { message in
                    signature.withUnsafeBufferPointer { signature in
                        var verified = 0
                        for _ in iterations {
                            // The count keeps every result observable (no blackHole needed:
                            // the OpenSSL calls are opaque to the optimizer anyway).
                            verified &+= Self.verify(key: key, md: md, message: message, signature: signature) ? 1 : 0
                        }
                        return verified
                    }
                }
            }
        }
    }
}

/// A private key loaded from PEM, for the bare signing baseline.
public final class BaselinePrivateKey {
    private let pointer: OpaquePointer

    /// Loads a PKCS#8 PEM private key; stops the run if it cannot.
    public init(pem: [UInt8]) {
        let loaded: OpaquePointer? = pem.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let loaded else { fatalError("baseline private key: \(BaselineErrors.drain())") }
        pointer = loaded
    }

    deinit { EVP_PKEY_free(pointer) }

    /// Runs `body` with the `EVP_PKEY*`.
    public func withKeyPointer<R>(_ body: (OpaquePointer) throws -> R) rethrows -> R {
        try body(pointer)
    }
}

/// The bare signing baseline: what OpenSSL alone costs to sign a JWS signing input of the same
/// size with the same key (ECDSA P-256 or RSA PKCS#1 v1.5, SHA-256), as a proof is signed.
public struct BaselineSigner {
    /// The key.
    public let key: BaselinePrivateKey
    /// SHA-256, fetched once.
    public let digest = BaselineDigest(name: "SHA256")
    /// The bytes signed.
    public let message: [UInt8]

    /// A signer of `message` with the PEM key `pem`.
    public init(pem: [UInt8], message: [UInt8]) {
        key = BaselinePrivateKey(pem: pem)
        self.message = message
    }

    /// Signs `message` `iterations` times, each with a new context and its own `EVP_DigestSignInit`,
    /// as the verify baseline does (the SDK copies a context it initialized once per key,
    /// `OpenSSLDigestTemplate`); returns the total signature length (to keep every result observable).
    @discardableResult
    public func run(iterations: Range<Int>) -> Int {
        key.withKeyPointer { key in
            digest.withDigestPointer { md in
                message.withUnsafeBufferPointer { message in
                    var total = 0
                    var signature = [UInt8](repeating: 0, count: 512)
                    for _ in iterations {
                        guard let ctx = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new failed") }
                        defer { EVP_MD_CTX_free(ctx) }
                        guard EVP_DigestSignInit(ctx, nil, md, nil, key) == 1 else { fatalError("\(BaselineErrors.drain())") }
                        var length = signature.count
                        let signed = signature.withUnsafeMutableBufferPointer {
                            EVP_DigestSign(ctx, $0.baseAddress, &length, message.baseAddress, message.count)
                        }
                        guard signed == 1 else { fatalError("\(BaselineErrors.drain())") }
                        total &+= length
                    }
                    return total
                }
            }
        }
    }
}

/// Signs sample access tokens with the samples' RSA key (`rsa-2048-private.pem`, kid
/// `sample-rsa-2048`, published by ``SampleTenantTransport``), so a benchmark can mint a token
/// with claims the fixtures do not have (a DPoP binding, `cnf.jkt`).
public enum SampleTokenSigner {
    /// `{"alg":"RS256","kid":"sample-rsa-2048","typ":"JWT"}`, then `payload` as given, signed RS256.
    public static func rs256(payload: String) -> String {
        let header = #"{"alg":"RS256","kid":"sample-rsa-2048","typ":"JWT"}"#
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        let signer = BaselineSigner(pem: SampleFixtures.bytes("rsa-2048-private.pem"), message: Array(input.utf8))
        let signature: [UInt8] = signer.key.withKeyPointer { key in
            signer.digest.withDigestPointer { md in
                guard let ctx = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new failed") }
                defer { EVP_MD_CTX_free(ctx) }
                guard EVP_DigestSignInit(ctx, nil, md, nil, key) == 1 else { fatalError("\(BaselineErrors.drain())") }
                var out = [UInt8](repeating: 0, count: 512)
                var length = out.count
                let signed = out.withUnsafeMutableBufferPointer {
                    EVP_DigestSign(ctx, $0.baseAddress, &length, signer.message, signer.message.count)
                }
                guard signed == 1 else { fatalError("\(BaselineErrors.drain())") }
                return Array(out[..<length])
            }
        }
        return input + "." + Base64URL.encode(signature)
    }
}
