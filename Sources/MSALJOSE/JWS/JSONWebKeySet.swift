import MSALJSON

/// A JWK set (RFC 7517 §5), as served at an issuer's `jwks_uri`.
///
/// Entries that cannot verify a supported signature (`kty: oct`, `use: enc`,
/// unknown types, weak or malformed keys) are set aside in ``rejectedKeys`` with
/// the reason; the rest of the set stays usable. A token whose `kid` names a
/// rejected entry fails with that entry's reason.
public struct JSONWebKeySet: Sendable {
    /// A JWK that was skipped, and why.
    public struct RejectedKey: Sendable {
        /// The entry's `kid`, when it had a string one.
        public let keyID: String?
        /// Why it cannot be used.
        public let reason: JOSEError
    }

    /// The usable keys, in document order.
    public let keys: [JSONWebKey]
    /// The entries that were skipped.
    public let rejectedKeys: [RejectedKey]

    /// A set of already-built keys.
    public init(keys: [JSONWebKey]) {
        self.keys = keys
        self.rejectedKeys = []
    }

    /// Parses a JWK set document.
    ///
    /// - Throws: ``JOSEError/Code/invalidKeySet`` when the document is not JSON,
    ///   has no `keys` array, or the array is empty.
    public init(json: some Collection<UInt8>) throws(JOSEError) {
        let document: JSONDocument
        do throws(JOSEError) {
            document = try JSONDocument.parsed(Array(json), limits: .document)
        } catch {
            throw JOSEError(.invalidKeySet, "JWK set is not valid JSON: \(error.message)")
        }
        guard document.root.kind == .object, let list = document.root["keys"], list.kind == .array else {
            throw JOSEError(.invalidKeySet, "JWK set must be an object with a \"keys\" array")
        }
        guard list.count > 0 else {
            throw JOSEError(.invalidKeySet, "JWK set has no keys")
        }
        guard list.count <= 1024 else {
            throw JOSEError(.limitExceeded, "JWK set has \(list.count) keys; at most 1024 are accepted")
        }
        var keys: [JSONWebKey] = []
        var rejected: [RejectedKey] = []
        for entry in list.elements {
            do throws(JOSEError) {
                keys.append(try JSONWebKey(jwk: entry))
            } catch {
                rejected.append(RejectedKey(keyID: entry["kid"]?.string, reason: error))
            }
        }
        self.keys = keys
        self.rejectedKeys = rejected
    }

    /// The key of this set that verifies `jwt` (by its header's `kid` and `alg`), or `nil` when the
    /// set has none that fits.
    package func verifyingKey(for jwt: JWT) -> JSONWebKey? {
        guard let name = jwt.algorithmName, let algorithm = JWSAlgorithm(rawValue: name) else { return nil }
        return try? selectKey(keyID: jwt.header.root["kid"], algorithm: algorithm)
    }

    /// Chooses the key that must verify a token with header `kid` and `alg`.
    ///
    /// With a `kid`, only keys with exactly that `kid` are considered. Without one,
    /// the single key that fits the algorithm is used; several are ambiguous.
    func selectKey(keyID: JSONValue?, algorithm: JWSAlgorithm) throws(JOSEError) -> JSONWebKey {
        if let keyID {
            guard keyID.kind == .string else {
                throw JOSEError(.invalidHeader, "header kid must be a string")
            }
            for key in keys {
                if let candidate = key.keyID, keyID.isString(candidate) {
                    try key.checkUsable(for: algorithm)
                    return key
                }
            }
            let shown = String((keyID.string ?? "").prefix(64))
            if let rejected = rejectedKeys.first(where: { $0.keyID.map(keyID.isString) ?? false }) {
                throw JOSEError(
                    rejected.reason.code == .limitExceeded ? .limitExceeded : .invalidKey,
                    "key \"\(shown)\" is unusable: \(rejected.reason.message)")
            }
            throw JOSEError(.keyNotFound, "no key in the JWK set has kid \"\(shown)\"")
        }
        var chosen: JSONWebKey?
        for key in keys where (try? key.checkUsable(for: algorithm)) != nil {
            guard chosen == nil else {
                throw JOSEError(.ambiguousKey, "the token has no kid and several keys in the set fit \(algorithm.rawValue)")
            }
            chosen = key
        }
        guard let chosen else {
            throw JOSEError(.keyNotFound, "the token has no kid and no key in the set fits \(algorithm.rawValue)")
        }
        return chosen
    }
}
