import Foundation
import MSALJOSE
import MSALJSON

/// The broker double's proof-of-possession key: RSA-2048, made at start. Tokens for MSAL's PoP are
/// bound to it (`cnf.kid`, its RFC 7638 thumbprint) and the broker signs the signed HTTP requests
/// that present them (`at`, `ts`, `m`, `u`, `p`, `nonce`, `cnf.jwk`), as the real broker does with
/// its device key.
struct BrokerProofKey: Sendable {
    let key: JWSSigningKey
    let thumbprint: String
    let publicJWK: JSON

    init() throws(MSALEmulatorError) {
        do throws(JOSEError) {
            key = try JWSSigningKey.generateRSA(bits: 2048, keyID: "", algorithm: .rs256)
            thumbprint = try key.thumbprint()
            publicJWK = try key.requiredPublicJWK()
        } catch {
            throw MSALEmulatorError(.keyGenerationFailed, "the broker's proof-of-possession key could not be made: \(error.message)")
        }
    }

    /// A signed HTTP request presenting `accessToken` (none: a request signed with the key alone,
    /// as `generateSignedHttpRequest` answers) for `method` on `host` and `path`.
    func signedHTTPRequest(
        accessToken: String?, method: String, host: String, path: String, nonce: String, now: Date
    ) throws(JOSEError)
        -> String
    {
        var claims: [JSONMember] = []
        if let accessToken { claims.append(JSONMember(name: "at", value: .string(accessToken))) }
        claims += [
            JSONMember(name: "ts", value: .integer(Int64(now.timeIntervalSince1970.rounded(.down)))),
            JSONMember(name: "m", value: .string(method)),
            JSONMember(name: "u", value: .string(host)),
        ]
        if !path.isEmpty { claims.append(JSONMember(name: "p", value: .string(path))) }
        claims.append(JSONMember(name: "nonce", value: .string(nonce)))
        claims.append(JSONMember(name: "cnf", value: .object([JSONMember(name: "jwk", value: publicJWK)])))
        return try sign(claims: .object(claims), type: "pop")
    }

    /// `claims` signed with the key (RS256), the header naming the key by its thumbprint and `type`.
    func sign(claims: JSON, type: String) throws(JOSEError) -> String {
        let header = JSON.object([
            JSONMember(name: "alg", value: .string("RS256")), JSONMember(name: "kid", value: .string(thumbprint)),
            JSONMember(name: "typ", value: .string(type)),
        ])
        return try key.sign(headerBytes: JSONWriter.write(header), payloadBytes: JSONWriter.write(claims))
    }
}
