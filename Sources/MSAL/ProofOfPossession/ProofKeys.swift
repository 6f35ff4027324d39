import MSALSupport

/// An application's proof keys, one per kind, each made when first needed and then kept for the
/// application's life, so the tokens bound to it stay usable while it runs. Beside a cache file or
/// a Secret Service cache, each key is kept too (``ProofKeyFile``, ``ProofKeySecret``), so the next
/// process uses the same key.
package final class ProofKeys: Sendable {
    /// Where keys are kept beside the cache.
    package enum Place: Sendable {
        /// Nowhere: in memory for the application's life.
        case memory
        /// In files beside the cache file at `cachePath`.
        case file(cachePath: String)
        /// In Secret Service items beside the cache's item.
        case secretService(SecretServiceStore, SecretServiceItem)
    }

    private let keys = Mutex<[ProofKey.Kind: ProofKey]>([:])
    /// Where keys are kept, decided on first use; `nil`: in memory only.
    private let place: (@Sendable () throws -> Place)?

    /// Keys kept in memory only.
    package init() {
        place = nil
    }

    /// Keys kept beside the cache file at `cachePath`.
    package convenience init(cachePath: String) {
        self.init(place: { .file(cachePath: cachePath) })
    }

    /// Keys kept where `place` says, asked on first use.
    package init(place: @escaping @Sendable () throws -> Place) {
        self.place = place
    }

    /// The key of `kind`, made now when there is none yet.
    ///
    /// - Throws: ``MSALFailure`` when OpenSSL cannot make one.
    package func key(_ kind: ProofKey.Kind) throws(MSALFailure) -> ProofKey {
        if let known = keys.withLock({ $0[kind] }) { return known }
        // Made or read outside the lock (an RSA key takes milliseconds); the first one stored wins.
        let made: ProofKey
        let decided: Place
        do {
            decided = try place?() ?? .memory
        } catch let error as MSALFailure {
            throw error
        } catch {
            throw MSALFailure(.internal, internalCode: .internalErrorUnexpected, message: "\(error)")
        }
        switch decided {
        case .memory: made = try ProofKey.generate(kind)
        case .file(let cachePath): made = try ProofKeyFile(cachePath: cachePath, kind: kind).key()
        case .secretService(let store, let item): made = try ProofKeySecret(store: store, cacheItem: item, kind: kind).key()
        }
        return keys.withLock { keys in
            if let stored = keys[kind] { return stored }
            keys[kind] = made
            return made
        }
    }
}
