import MSALSupport

/// An application's proof keys, one per kind, each made when first needed and then kept for the
/// application's life, so the tokens bound to it stay usable while it runs.
package final class ProofKeys: Sendable {
    private let keys = Mutex<[ProofKey.Kind: ProofKey]>([:])

    package init() {}

    /// The key of `kind`, made now when there is none yet.
    ///
    /// - Throws: ``MSALFailure`` when OpenSSL cannot make one.
    package func key(_ kind: ProofKey.Kind) throws(MSALFailure) -> ProofKey {
        if let known = keys.withLock({ $0[kind] }) { return known }
        // Made outside the lock (an RSA key takes milliseconds); the first one stored wins.
        let made = try ProofKey.generate(kind)
        return keys.withLock { keys in
            if let stored = keys[kind] { return stored }
            keys[kind] = made
            return made
        }
    }
}
