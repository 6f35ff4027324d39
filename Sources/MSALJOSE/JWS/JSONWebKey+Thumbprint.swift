import MSALJSON

extension JSONWebKey {
    /// The RFC 7638 SHA-256 thumbprint of the key (base64url): what a DPoP-bound token's `cnf.jkt`
    /// names, compared with the thumbprint of the proof's `jwk`.
    package func thumbprint() throws(JOSEError) -> String {
        try key.thumbprint(curve: keyType == .ellipticCurve ? curve : nil)
    }
}
