/// A proof key kept in the Secret Service beside a Secret Service cache: an item of its own
/// (schema `<cache schema>.proof-key`, the cache's attributes and `proof_key` = the kind), so the
/// next process signs with the key the cached bound tokens are bound to, and no key byte is on disk.
///
/// Read and made under the signal file's exclusive lock, so processes that start together agree
/// on one key. An item that holds no key of its kind is replaced.
package struct ProofKeySecret: Sendable {
    let store: SecretServiceStore
    let item: SecretServiceItem
    let kind: ProofKey.Kind

    init(store: SecretServiceStore, cacheItem: SecretServiceItem, kind: ProofKey.Kind) throws(MSALFailure) {
        self.store = store
        self.kind = kind
        self.item = try store.proofKeyItem(of: cacheItem, kind: kind)
    }

    /// The kept key, else a new one kept now.
    ///
    /// - Throws: ``MSALFailure``: the Secret Service's errors (unavailable, locked, timed out), the
    ///   signal file's.
    func key() throws(MSALFailure) -> ProofKey {
        do {
            return try store.signal.withLock(exclusive: true) { _ throws -> ProofKey in
                if let source = try item.lookup(limit: ProofKeyFile.maximumSize),
                    let kept = try? ProofKey(kind: kind, privateKeyPEM: source.allBytes)
                {
                    return kept
                }
                let made = try ProofKey.generate(kind)
                try item.store(try made.privateKeyPEM())
                return made
            }
        } catch let error as MSALFailure {
            throw error
        } catch {
            throw MSALFailure(.internal, internalCode: .internalErrorUnexpected, message: "\(error)")
        }
    }
}
