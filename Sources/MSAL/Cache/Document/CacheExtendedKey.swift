import MSALJOSE

/// The extended cache key the other MSALs share (MSAL for Python's `ext_cache_key`, MSAL Go's
/// `CacheExtKeyGenerator`, MSAL.NET's): a hash of a token request's non-standard body fields, such
/// as `fmi_path`, so that tokens asked for with different values of them are cached apart.
///
/// The rule, read from MSAL for Python 1.39 and checked against it by interop tests: every field
/// not in ``standardFields`` and with a non-empty value, taken in ascending order of their names
/// (by UTF-8 bytes), each written as `<UTF-8 length of the name>:<name><UTF-8 length of the
/// value>:<value>`; the concatenation's SHA-256, base64url without padding, lower-cased. No such
/// field: no key.
///
/// An access token with one is written with an `ext_cache_key` member and under the key
/// ``CacheKey/accessToken(homeAccountID:environment:clientID:realm:target:scheme:extendedKey:)``
/// names with `atext`; a lookup finds it only when asking with the same extended key, and a lookup
/// without one never finds it.
package enum CacheExtendedKey {
    /// The entry member that holds the key.
    package static var member: String { CacheKnownField.extCacheKey.name }

    /// The body fields that never contribute: the protocol's own (they are in every request of a
    /// grant, or describe the credential, the scheme or the user), as MSAL for Python lists them.
    package static let standardFields: Set<String> = [
        "client_id", "grant_type", "scope", "claims", "username", "password", "refresh_token", "code", "redirect_uri",
        "code_verifier", "device_code", "assertion", "requested_token_use", "client_assertion", "client_assertion_type",
        "client_secret", "token_type", "req_cnf", "key_id", "user_federated_identity_credential", "user_id", "client_info",
    ]

    /// The key of a request whose body has `fields`; `nil` when none of them contributes.
    ///
    /// - Throws: the digest's failure (OpenSSL unusable): never a request without its key.
    package static func make(_ fields: [(name: String, value: String)]) throws(MSALFailure) -> String? {
        var contributing = fields.filter { !$0.value.isEmpty && !standardFields.contains($0.name) }
        guard !contributing.isEmpty else { return nil }
        // Byte order of the UTF-8 names, as Python compares `str` keys (code point order is the
        // same as UTF-8 byte order).
        contributing.sort { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
        var serialized: [UInt8] = []
        for field in contributing {
            serialized += Array("\(field.name.utf8.count):".utf8) + Array(field.name.utf8)
            serialized += Array("\(field.value.utf8.count):".utf8) + Array(field.value.utf8)
        }
        do throws(JOSEError) {
            return CacheText.lowercased(Base64URL.encode(try MessageDigest.sha256(serialized)))
        } catch {
            throw MSALFailure(error)
        }
    }
}
