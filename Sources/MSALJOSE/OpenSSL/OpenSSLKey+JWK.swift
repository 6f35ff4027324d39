import MSALJSON

extension OpenSSLKey {
    /// The public key's required JWK members in the lexicographic order RFC 7638 §3.2 fixes:
    /// `crv`, `kty`, `x`, `y` for an EC key on `curve`, else `e`, `kty`, `n` for an RSA key. This is
    /// what a proof's `jwk` header and a signed request's `cnf.jwk` carry, and what a thumbprint hashes.
    func requiredPublicJWK(curve: JSONWebKey.Curve?) throws(JOSEError) -> JSON {
        guard let curve else {
            return .object([
                JSONMember(name: "e", value: .string(Base64URL.encode(try bigNumberParameter("e")))),
                JSONMember(name: "kty", value: .string(JSONWebKey.KeyType.rsa.rawValue)),
                JSONMember(name: "n", value: .string(Base64URL.encode(try bigNumberParameter("n")))),
            ])
        }
        return .object([
            JSONMember(name: "crv", value: .string(curve.rawValue)),
            JSONMember(name: "kty", value: .string(JSONWebKey.KeyType.ellipticCurve.rawValue)),
            JSONMember(name: "x", value: .string(Base64URL.encode(try bigNumberParameter("qx", width: curve.coordinateSize)))),
            JSONMember(name: "y", value: .string(Base64URL.encode(try bigNumberParameter("qy", width: curve.coordinateSize)))),
        ])
    }

    /// The RFC 7638 SHA-256 thumbprint of the public key, base64url without padding.
    func thumbprint(curve: JSONWebKey.Curve?) throws(JOSEError) -> String {
        Base64URL.encode(try MessageDigest.sha256(JSONWriter.write(try requiredPublicJWK(curve: curve))))
    }
}
