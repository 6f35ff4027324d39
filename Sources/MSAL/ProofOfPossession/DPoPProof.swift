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
        // The claims written straight to bytes, in the order JSONWriter would write them: one proof
        // per resource request, so no intermediate JSON values.
        var claims: [UInt8] = []
        claims.reserveCapacity(256 + (nonce?.utf8.count ?? 0))
        func name(_ name: StaticString, first: Bool = false) {
            claims.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
            claims.append(UInt8(ascii: "\""))
            name.withUTF8Buffer { claims.append(contentsOf: $0) }
            claims.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        }
        /// A base64url value: nothing in it needs escaping.
        func base64URL(_ bytes: [UInt8]) {
            claims.append(UInt8(ascii: "\""))
            claims += Base64URL.encodeToBytes(bytes)
            claims.append(UInt8(ascii: "\""))
        }
        do throws(JOSEError) {
            name("jti", first: true)
            base64URL(try SecureRandom.bytes(count: 16))
            name("htm")
            JSONStringEncoding.appendQuoted(method, to: &claims)
            name("htu")
            JSONStringEncoding.appendQuoted(targetURI(url), to: &claims)
            name("iat")
            claims.append(contentsOf: String(issuedAt).utf8)
            if let accessToken {
                name("ath")
                base64URL(try tokenDigest(accessToken))
            }
            if let nonce {
                name("nonce")
                JSONStringEncoding.appendQuoted(nonce, to: &claims)
            }
            claims.append(UInt8(ascii: "}"))
        } catch {
            throw MSALFailure(error)
        }
        do throws(JOSEError) {
            return try key.signingKey.sign(encodedHeader: key.encodedDPoPHeader, payloadBytes: claims)
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
        do throws(JOSEError) {
            return Base64URL.encode(try tokenDigest(accessToken))
        } catch {
            throw MSALFailure(error)
        }
    }

    /// The SHA-256 of the access token, hashed in place: its own UTF-8 bytes, not a copy of them.
    private static func tokenDigest(_ accessToken: String) throws(JOSEError) -> [UInt8] {
        var token = accessToken
        return try token.withUTF8 { bytes in
            Result { () throws(JOSEError) -> [UInt8] in try MessageDigest.sha256(UnsafeRawBufferPointer(bytes)) }
        }.get()
    }
}
