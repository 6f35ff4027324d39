import MSALJSON

extension JSONWebKey {
    /// Builds a key from a parsed JWK object.
    init(jwk: JSONValue) throws(JOSEError) {
        guard jwk.kind == .object else {
            throw JOSEError(.invalidKey, "a JWK must be a JSON object")
        }
        let keyID = try Self.optionalString(jwk, "kid")
        let label = keyID.map { "JWK \"\($0.prefix(64))\"" } ?? "JWK"
        guard let ktyValue = jwk["kty"], let kty = ktyValue.string else {
            throw JOSEError(.invalidKey, "\(label) has no string kty")
        }
        guard let keyType = KeyType(rawValue: kty) else {
            throw JOSEError(.invalidKey, "\(label) has kty \"\(kty.prefix(16))\", which cannot verify a supported signature")
        }
        let use = try Self.optionalString(jwk, "use")
        if let use, use != "sig" {
            throw JOSEError(.invalidKey, "\(label) is not a signature key (use \"\(use.prefix(16))\")")
        }
        var keyOperations: [String]?
        if let ops = jwk["key_ops"] {
            guard ops.kind == .array else { throw JOSEError(.invalidKey, "\(label) has a key_ops that is not an array") }
            var list: [String] = []
            for op in ops.elements {
                guard let name = op.string else { throw JOSEError(.invalidKey, "\(label) has a non-string key_ops entry") }
                list.append(name)
            }
            guard list.contains("verify") else {
                throw JOSEError(.invalidKey, "\(label) does not allow \"verify\" in key_ops")
            }
            keyOperations = list
        }
        var algorithm: JWSAlgorithm?
        if let declared = try Self.optionalString(jwk, "alg") {
            guard let known = JWSAlgorithm(rawValue: declared) else {
                throw JOSEError(
                    .invalidKey, "\(label) declares alg \"\(declared.prefix(16))\", which is not a supported signature algorithm")
            }
            guard known.keyType == keyType else {
                throw JOSEError(.invalidKey, "\(label) declares alg \(declared) for a \(kty) key")
            }
            algorithm = known
        }
        switch keyType {
        case .rsa:
            let modulus = Self.strippingLeadingZeros(try Self.base64URLMember(jwk, "n", label: label))
            let exponent = Self.strippingLeadingZeros(try Self.base64URLMember(jwk, "e", label: label))
            let bits = modulus.isEmpty ? 0 : modulus.count * 8 - modulus[0].leadingZeroBitCount
            guard bits >= Self.minimumRSABits else {
                throw JOSEError(.invalidKey, "\(label) has a \(bits)-bit RSA modulus; at least \(Self.minimumRSABits) bits are required")
            }
            guard bits <= Self.maximumRSABits else {
                throw JOSEError(.invalidKey, "\(label) has a \(bits)-bit RSA modulus; at most \(Self.maximumRSABits) bits are accepted")
            }
            guard modulus.last! & 1 == 1 else {
                throw JOSEError(.invalidKey, "\(label) has an even RSA modulus")
            }
            guard !ROCAFingerprint.matches(modulus: modulus) else {
                throw JOSEError(.invalidKey, "\(label) has an RSA modulus from a generator with the ROCA weakness (CVE-2017-15361)")
            }
            guard !exponent.isEmpty, exponent.count <= 8, exponent.last! & 1 == 1, exponent != [1] else {
                throw JOSEError(.invalidKey, "\(label) has an invalid RSA exponent (must be odd, at least 3, at most 64 bits)")
            }
            let key = try OpenSSLKey.rsaPublicKey(modulus: modulus, exponent: exponent)
            self.init(keyID: keyID, keyType: .rsa, curve: nil, algorithm: algorithm, use: use, keyOperations: keyOperations, key: key)
        case .ellipticCurve:
            guard let crvValue = jwk["crv"], let crv = crvValue.string else {
                throw JOSEError(.invalidKey, "\(label) has no string crv")
            }
            guard let curve = Curve(rawValue: crv) else {
                throw JOSEError(.invalidKey, "\(label) is on curve \"\(crv.prefix(16))\"; only P-256 and P-384 are supported")
            }
            if let algorithm, algorithm.curve != curve {
                throw JOSEError(.invalidKey, "\(label) declares alg \(algorithm.rawValue) on curve \(crv)")
            }
            let x = try Self.base64URLMember(jwk, "x", label: label)
            let y = try Self.base64URLMember(jwk, "y", label: label)
            guard x.count == curve.coordinateSize, y.count == curve.coordinateSize else {
                throw JOSEError(.invalidKey, "\(label) coordinates must be exactly \(curve.coordinateSize) bytes for \(crv)")
            }
            let key = try OpenSSLKey.ecPublicKey(curve: curve, x: x, y: y)
            self.init(
                keyID: keyID, keyType: .ellipticCurve, curve: curve, algorithm: algorithm, use: use, keyOperations: keyOperations, key: key)
        }
    }

    private static func optionalString(_ jwk: JSONValue, _ name: String) throws(JOSEError) -> String? {
        guard let value = jwk[name] else { return nil }
        guard let text = value.string else {
            throw JOSEError(.invalidKey, "JWK member \(name) must be a string")
        }
        return text
    }

    private static func base64URLMember(_ jwk: JSONValue, _ name: String, label: String) throws(JOSEError) -> [UInt8] {
        guard let value = jwk[name], value.kind == .string else {
            throw JOSEError(.invalidKey, "\(label) has no string \(name)")
        }
        do throws(JOSEError) {
            return try Base64URL.decode(bytes: value.rawBytes, padding: .reject)
        } catch {
            throw JOSEError(.invalidKey, "\(label) member \(name): \(error.message)")
        }
    }

    private static func strippingLeadingZeros(_ bytes: [UInt8]) -> [UInt8] {
        guard let first = bytes.firstIndex(where: { $0 != 0 }) else { return [] }
        return Array(bytes[first...])
    }
}
