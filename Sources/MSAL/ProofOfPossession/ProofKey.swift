import MSALJOSE
import MSALJSON

/// A key that proves possession of the tokens bound to it: the public half is named in the token
/// request (DPoP's proof, MSAL's `req_cnf`), and every use of a bound token is signed with the
/// private half.
///
/// Made once, with what each proof needs: the RFC 7638 thumbprint and the public key's required
/// members, so a proof costs one signature.
package struct ProofKey: Sendable {
    /// What a key proves possession for; each kind has its own key and algorithm.
    package enum Kind: String, Sendable, CaseIterable {
        /// DPoP (RFC 9449): ES256 on P-256, the algorithm every DPoP server must accept.
        case dpop
        /// MSAL's signed HTTP request (Microsoft Entra's `token_type=pop`): RS256 with a 2048-bit
        /// RSA key, as MSAL for iOS and MSAL.js sign it.
        case signedHTTPRequest = "shr"

        /// The signature algorithm of this kind's proofs.
        package var algorithm: JWSAlgorithm {
            switch self {
            case .dpop: .es256
            case .signedHTTPRequest: .rs256
            }
        }
    }

    /// The kind.
    package let kind: Kind
    /// The key pair.
    package let signingKey: JWSSigningKey
    /// The RFC 7638 SHA-256 thumbprint (base64url): DPoP's `jkt`, the `kid` of `req_cnf`.
    package let thumbprint: String
    /// The public key's required members (RFC 7638 order), as a proof carries them.
    package let publicJWK: JSON
    /// The DPoP proof header of this key (`typ`, `alg`, `jwk`), base64url-encoded once: it is the
    /// same in every proof the key signs.
    package let encodedDPoPHeader: [UInt8]

    /// A new key of `kind`.
    ///
    /// - Throws: ``MSALFailure`` (``MSALInternalError/internalErrorUnexpected``) when OpenSSL
    ///   cannot make one.
    package static func generate(_ kind: Kind) throws(MSALFailure) -> ProofKey {
        do throws(JOSEError) {
            let key =
                switch kind {
                case .dpop: try JWSSigningKey.generateEC(keyID: "", algorithm: kind.algorithm)
                case .signedHTTPRequest: try JWSSigningKey.generateRSA(bits: 2048, keyID: "", algorithm: kind.algorithm)
                }
            return try ProofKey(kind: kind, signingKey: key)
        } catch {
            throw MSALFailure(error)
        }
    }

    /// A kept key of `kind` (``privateKeyPEM()``), refused when it is not one of that kind.
    ///
    /// - Throws: ``MSALFailure`` mapping the ``JOSEError`` (an unreadable PEM text, a key of another type).
    package init(kind: Kind, privateKeyPEM pem: [UInt8]) throws(MSALFailure) {
        do throws(JOSEError) {
            try self.init(kind: kind, signingKey: try JWSSigningKey(privateKeyPEM: pem, keyID: "", algorithm: kind.algorithm))
        } catch {
            throw MSALFailure(error)
        }
    }

    private init(kind: Kind, signingKey: JWSSigningKey) throws(JOSEError) {
        self.kind = kind
        self.signingKey = signingKey
        self.thumbprint = try signingKey.thumbprint()
        self.publicJWK = try signingKey.requiredPublicJWK()
        self.encodedDPoPHeader = Base64URL.encodeToBytes(
            JSONWriter.write(
                .object([
                    JSONMember(name: "typ", value: .string(DPoPProof.type)),
                    JSONMember(name: "alg", value: .string(signingKey.algorithm.rawValue)),
                    JSONMember(name: "jwk", value: publicJWK),
                ])))
    }

    /// The key pair as a PKCS#8 PEM block, for the store that keeps it with the tokens it binds.
    package func privateKeyPEM() throws(MSALFailure) -> [UInt8] {
        do throws(JOSEError) {
            return try signingKey.privateKeyPEM()
        } catch {
            throw MSALFailure(error)
        }
    }

    /// A compact JWS of `header` members and `claims`, signed with this key.
    func sign(header: [JSONMember], claims: JSON) throws(MSALFailure) -> String {
        do throws(JOSEError) {
            return try signingKey.sign(headerBytes: JSONWriter.write(.object(header)), payloadBytes: JSONWriter.write(claims))
        } catch {
            throw MSALFailure(error)
        }
    }
}
