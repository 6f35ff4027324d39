import Foundation

extension TokenCache {
    /// ``read(clientID:partition:_:)`` from the Secret Service item: from memory while the signal
    /// file is unchanged (one `stat`), else under the signal file's shared lock, reading the item again.
    func readSecret<T>(_ store: SecretServiceStore, _ item: SecretServiceItem, _ body: (TokenCacheContents) throws -> T) throws -> T {
        try readLocked(store.signal, reload: { try reloadSecretIfChanged(store, item, $0, quarantining: $1) }, body)
    }

    /// ``write(clientID:partition:_:)`` to the Secret Service item, under the signal file's exclusive
    /// lock (and msal-extensions' lock): read the item again if another process changed it, apply
    /// `body`, store the item, then replace the signal file so other processes notice.
    ///
    /// When the store fails (the daemon stopped, the keyring locked) the error is thrown and the
    /// contents in memory stay those of the item, which keeps its previous document.
    func writeSecret<T>(_ store: SecretServiceStore, _ item: SecretServiceItem, _ body: (inout TokenCacheContents) throws -> T) throws -> T
    {
        let reload = { (access: TokenCacheFileAccess) throws in try self.reloadSecretIfChanged(store, item, access, quarantining: true) }
        return try writeLocked(
            store.signal, reload: reload,
            persist: { access, contents in
                let bytes = contents.document.serialized()
                let limit = store.fileOptions.maximumFileSize
                guard bytes.count <= limit else {
                    throw MSALFailure(
                        .internal, internalCode: .cacheTooLarge,
                        message:
                            "Secret Service item \(item.description): the new content is \(bytes.count) bytes, over the limit of \(limit) bytes"
                    )
                }
                try item.store(bytes)
                // An empty file by rename, with a modification time strictly after the last one:
                // msal-extensions reloads when it is newer than its last read, swift-msal when its stamp moved.
                do {
                    return try access.writeSignal()
                } catch {
                    // The item holds the new document but nobody was told: read it again next time
                    // rather than trust the contents in memory.
                    state.withLock { $0.loaded = false }
                    throw error
                }
            }, body)
    }

    /// Reads the item again when the signal file's stamp differs from the one the contents came from.
    ///
    /// The stamp is taken before the item is read, so a writer that stores between the two leaves a
    /// stamp that moves again and the next access reads once more. An item that is not a cache
    /// document is set aside as a second item (``SecretServiceStore/quarantineItem(of:time:)``) and
    /// removed when `quarantining` (the exclusive lock is held); the contents start empty and the
    /// caller gets ``MSALInternalError/cacheCorrupt`` saying where the document went.
    private func reloadSecretIfChanged(
        _ store: SecretServiceStore, _ item: SecretServiceItem, _ access: TokenCacheFileAccess, quarantining: Bool
    ) throws {
        let stamp = try access.signalStamp()
        if state.withLock({ $0.loaded && $0.stamp == stamp }) { return }
        guard let source = try item.lookup(limit: store.fileOptions.maximumFileSize) else {
            startEmpty(stamp: stamp)
            return
        }
        switch parse(source) {
        case .success(let document):
            adopt(document, stamp: stamp)
        case .failure(let error):
            guard error.internalCode == .cacheCorrupt else { throw error }
            guard quarantining else { throw CorruptFile() }
            let time = TokenCacheFileAccess.utcTimestamp(store.fileOptions.clock.now().timeIntervalSince1970)
            let aside = try store.quarantineItem(of: item, time: time)
            try aside.store(source.allBytes)
            try item.clear()
            startEmpty(stamp: try access.writeSignal())
            var reported = error
            reported.message =
                "Secret Service item \(item.description): \(error.message). The document was set aside as the item "
                + "\(aside.description) and the cache starts empty."
            throw reported
        }
    }
}

extension TokenCache {
    /// Which storage answers, for tools and logs: `memory`, `file <path>`, `custom`, or for Secret
    /// Service storage `secret-service (schema "…", signal <path>)` once it answered, the fallback
    /// with the reason, or `secret-service (not used yet)`.
    package var storageDescription: String {
        switch backing {
        case .memory: return "memory"
        case .file(let file): return "file \(file.path)"
        case .custom: return "custom"
        case .partitioned: return "partitioned"
        case .secretService(let store):
            switch store.resolvedIfKnown {
            case .secretService: return "secret-service (schema \"\(store.schemaName)\", signal \(store.signal.path))"
            case .memory: return "memory (fallback: the Secret Service is unavailable)"
            case .file(let file): return "file \(file.path) (fallback: the Secret Service is unavailable)"
            case nil: return "secret-service (not used yet)"
            }
        }
    }
}
