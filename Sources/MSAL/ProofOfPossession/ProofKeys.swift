import MSALSupport

/// An application's proof keys, one per kind, each made when first needed and then kept for the
/// application's life, so the tokens bound to it stay usable while it runs. With a cache file, each
/// key is kept beside it (``ProofKeyFile``), so the next process uses the same key.
package final class ProofKeys: Sendable {
    private let keys = Mutex<[ProofKey.Kind: ProofKey]>([:])
    /// The cache file the keys are kept beside; `nil`: in memory only.
    private let cachePath: String?

    package init(cachePath: String? = nil) {
        self.cachePath = cachePath
    }

    /// The key of `kind`, made now when there is none yet.
    ///
    /// - Throws: ``MSALFailure`` when OpenSSL cannot make one.
    package func key(_ kind: ProofKey.Kind) throws(MSALFailure) -> ProofKey {
        if let known = keys.withLock({ $0[kind] }) { return known }
        // Made or read outside the lock (an RSA key takes milliseconds); the first one stored wins.
        let made: ProofKey
        if let cachePath {
            made = try ProofKeyFile(cachePath: cachePath, kind: kind).key()
        } else {
            made = try ProofKey.generate(kind)
        }
        return keys.withLock { keys in
            if let stored = keys[kind] { return stored }
            keys[kind] = made
            return made
        }
    }
}
