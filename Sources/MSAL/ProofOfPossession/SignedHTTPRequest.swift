import Foundation
import MSALJOSE
import MSALJSON

/// MSAL's proof-of-possession scheme for Microsoft Entra (`token_type=pop`): the token request
/// names the app's ``ProofKey`` (`req_cnf`), and each use of the token is a signed HTTP request
/// (SHR) — a JWS of the access token, the time, the request's method, host and path, a nonce and
/// the public key — sent as `Authorization: PoP <SHR>`.
///
/// The members are those MSAL for iOS, MSAL.NET and MSAL.js sign: header `alg` (RS256), `kid`
/// (the key's thumbprint) and `typ` `pop` (MSAL.NET's and MSAL.js's; MSAL for iOS writes `JWT`);
/// claims `at`, `ts`, `m`, `u` (the host, with a port other than the scheme's default, as MSAL.NET
/// and MSAL.js write it), `p`, `nonce` and `cnf.jwk`.
package enum SignedHTTPRequest {
    /// The token request's `req_cnf`: the base64url JSON object `{"kid": thumbprint}`.
    package static func requestConfirmation(_ key: ProofKey) -> String {
        Base64URL.encode(JSONWriter.write(.object([JSONMember(name: "kid", value: .string(key.thumbprint))])))
    }

    /// A signed HTTP request presenting `accessToken`.
    ///
    /// - Parameters:
    ///   - key: A ``ProofKey/Kind/signedHTTPRequest`` key, the one `req_cnf` named.
    ///   - method: The resource request's method (`m`), upper case.
    ///   - url: The resource request's URL: its host (and port) is `u`, its path `p`.
    ///   - nonce: The resource's nonce; `nil` makes a random one (a UUID, as MSAL for iOS does).
    ///   - timestamp: `ts`, whole seconds since 1970.
    /// - Throws: ``MSALFailure`` when the signature cannot be made.
    package static func make(
        key: ProofKey, accessToken: String, method: String, url: URL, nonce: String?, timestamp: Int64
    ) throws(MSALFailure) -> String {
        var claims: [JSONMember] = [
            JSONMember(name: "at", value: .string(accessToken)),
            JSONMember(name: "ts", value: .number(String(timestamp))),
            JSONMember(name: "m", value: .string(method)),
        ]
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        if let host = components.flatMap(DPoPProof.hostAndPort) {
            claims.append(JSONMember(name: "u", value: .string(host)))
        }
        if let path = components?.percentEncodedPath, !path.isEmpty {
            claims.append(JSONMember(name: "p", value: .string(path)))
        }
        claims.append(JSONMember(name: "nonce", value: .string(nonce ?? UUID().uuidString)))
        claims.append(JSONMember(name: "cnf", value: .object([JSONMember(name: "jwk", value: key.publicJWK)])))
        return try key.sign(
            header: [
                JSONMember(name: "alg", value: .string(key.signingKey.algorithm.rawValue)),
                JSONMember(name: "kid", value: .string(key.thumbprint)),
                JSONMember(name: "typ", value: .string("pop")),
            ],
            claims: .object(claims))
    }
}
