import Foundation
import MSALJOSE
import MSALJSON

/// DPoP proofs (RFC 9449 §4): a JWT of type `dpop+jwt`, signed with the client's ``ProofKey`` and
/// carrying its public key, that binds one HTTP request — its method and target URI, at a time,
/// with a unique id — and, at a resource, the access token it presents (`ath`).
package enum DPoPProof {
    /// The proof's JWT type.
    package static let type = "dpop+jwt"

    /// A proof for one request.
    ///
    /// - Parameters:
    ///   - key: A ``ProofKey/Kind/dpop`` key.
    ///   - method: The request's method (`htm`), as sent (upper case).
    ///   - url: The request's target; its query and fragment are left out of `htu` (``targetURI(_:)``).
    ///   - accessToken: At a resource, the token presented: its hash is `ath`. `nil` at the token endpoint.
    ///   - nonce: The server's last `DPoP-Nonce`, when it gave one.
    ///   - issuedAt: `iat`, whole seconds since 1970.
    /// - Throws: ``MSALFailure`` when the random id or the signature cannot be made.
    package static func make(
        key: ProofKey, method: String, url: URL, accessToken: String? = nil, nonce: String? = nil, issuedAt: Int64
    ) throws(MSALFailure) -> String {
        var claims: [JSONMember] = [
            JSONMember(name: "jti", value: .string(try uniqueID())),
            JSONMember(name: "htm", value: .string(method)),
            JSONMember(name: "htu", value: .string(targetURI(url))),
            JSONMember(name: "iat", value: .number(String(issuedAt))),
        ]
        if let accessToken { claims.append(JSONMember(name: "ath", value: .string(try tokenHash(accessToken)))) }
        if let nonce { claims.append(JSONMember(name: "nonce", value: .string(nonce))) }
        do throws(JOSEError) {
            return try key.signingKey.sign(encodedHeader: key.encodedDPoPHeader, payloadBytes: JSONWriter.write(.object(claims)))
        } catch {
            throw MSALFailure(error)
        }
    }

    /// `htu`: the URI without its query and fragment, with the scheme and host in lower case and a
    /// default port left out (RFC 9449 §4.2, with RFC 3986 §6.2.2–6.2.3 normalization: an empty
    /// path is `/`).
    ///
    /// Read from the URL's text (as ``DPoPProofVerifier/normalized(_:)`` compares it), not through
    /// `URLComponents`, whose host handling cost a proof a tenth of its time. A URL with an `@`
    /// (user information, which is no part of an HTTP target URI) takes `URLComponents`, which
    /// leaves it out.
    package static func targetURI(_ url: URL) -> String {
        let text = url.absoluteString
        guard text.utf8.contains(UInt8(ascii: "@")) else { return DPoPProofVerifier.normalized(text) }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false), let scheme = components.scheme?.lowercased(),
            let host = hostAndPort(components)
        else { return DPoPProofVerifier.normalized(text) }
        let path = components.percentEncodedPath
        return scheme + "://" + host + (path.isEmpty ? "/" : path)
    }

    /// The host in lower case, with a port other than the scheme's default; `nil` without a host.
    /// DPoP's `htu` and the signed HTTP request's `u` both name it so.
    static func hostAndPort(_ components: URLComponents) -> String? {
        guard let host = components.percentEncodedHost?.lowercased(), !host.isEmpty else { return nil }
        let scheme = components.scheme?.lowercased()
        guard let port = components.port, !(scheme == "https" && port == 443), !(scheme == "http" && port == 80) else { return host }
        return host + ":\(port)"
    }

    /// `ath`: the base64url SHA-256 of the access token's ASCII bytes.
    package static func tokenHash(_ accessToken: String) throws(MSALFailure) -> String {
        // The same digest as an on-behalf-of assertion's cache key.
        try OnBehalfOfFlow.assertionHash(accessToken)
    }

    /// `jti`: 128 random bits, base64url.
    private static func uniqueID() throws(MSALFailure) -> String {
        do throws(JOSEError) {
            return Base64URL.encode(try SecureRandom.bytes(count: 16))
        } catch {
            throw MSALFailure(error)
        }
    }
}
