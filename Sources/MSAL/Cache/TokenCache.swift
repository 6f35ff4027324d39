import Foundation
import MSALSupport

/// The token cache of one application: the indexed contents in memory, kept in step with where the
/// cache is stored (nowhere, the built-in file, or the application's hooks).
///
/// With the file, reads hold the shared lock and writes the exclusive one (the lock also orders the
/// threads of this process); the file is read again only when it changed on disk (another process
/// wrote it), and every change is written back before the lock is released, so two processes never
/// lose each other's updates. With the application's hooks, whole operations run one at a time on
/// the cache's own serial queue.
///
/// No in-memory lock is ever held across file I/O or the application's code: `state` guards only
/// the contents in memory. Async callers use the `async` overloads (`TokenCache+Async.swift`),
/// which answer from memory when they can and otherwise run the blocking work on
/// ``BlockingWork`` or the hook queue, never on Swift's cooperative threads.
package final class TokenCache: Sendable {
    enum Backing: Sendable {
        case memory
        case file(TokenCacheFile)
        case custom(any MSALTokenCacheSerializer)
        case secretService(SecretServiceStore)
        /// The app's partitioned store; `attempts` per write (``MSALCacheConfig/partitionWriteAttempts``).
        case partitioned(any MSALPartitionedTokenCacheStore, attempts: Int)
    }

    struct State {
        var contents: TokenCacheContents
        /// The stamp of the file contents `contents` was read from or written as.
        var stamp: TokenCacheFileStamp?
        /// Whether the file was read at least once.
        var loaded = false
        /// The file's watch generation (``TokenCacheFile/watchedGeneration``) when `contents` were
        /// last found to match the file: while the generation stays there, they still do.
        var watchedGeneration: UInt64?
    }

    let backing: Backing
    let state: Mutex<State>
    /// Runs whole operations with custom hooks one at a time, off the cooperative pool.
    let hookQueue = DispatchQueue(label: "swift-msal.token-cache.hooks")
    /// Set on `hookQueue`, to refuse a hook that calls back into the cache (it would wait for itself).
    let hookQueueKey = DispatchSpecificKey<Bool>()
    /// Whether the hooks are told each operation's partition key
    /// (``MSALTokenCacheAccess/suggestedCacheKey``): a confidential client's and a managed
    /// identity's cache; a public client's cache is one document.
    let suggestsPartitionKeys: Bool
    /// The app's own account stores of ``MSALCacheConfig/externalAccountProviders``, as the
    /// application was created with them (none for a cache made from contents).
    package let externalAccountProviders: [any MSALExternalAccountProviding]

    /// A cache in memory, optionally starting from `contents`.
    package init(contents: TokenCacheContents = TokenCacheContents()) {
        externalAccountProviders = []
        backing = .memory
        suggestsPartitionKeys = false
        state = Mutex(State(contents: contents, loaded: true))
        hookQueue.setSpecific(key: hookQueueKey, value: true)
    }

    /// A cache stored as `config` says; `suggestsPartitionKeys` for a confidential client's or a
    /// managed identity's cache.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/cacheLocationUnavailable`` when the default
    ///   file location cannot be determined.
    package init(config: MSALCacheConfig, suggestsPartitionKeys: Bool = false) throws {
        self.suggestsPartitionKeys = suggestsPartitionKeys
        externalAccountProviders = config.externalAccountProviders
        var options = config.fileOptions ?? TokenCacheFileOptions()
        options.lockTimeout = config.fileLockTimeout
        switch config.storage {
        case .memory:
            backing = .memory
        case .file(let path):
            backing = .file(try TokenCacheFile(path: try path ?? TokenCacheFile.defaultPath(), options: options))
        case .custom(let serializer):
            backing = .custom(serializer)
        case .secretService(let settings):
            backing = .secretService(try SecretServiceStore(settings: settings, fileOptions: options))
        case .partitioned(let store):
            guard suggestsPartitionKeys else {
                throw MSALFailure(
                    .internal, internalCode: .internalErrorInvalidParameter,
                    message:
                        "A partitioned token cache store is for confidential clients and managed identity: a public client's cache is one document, its account list spanning every account"
                )
            }
            guard config.partitionWriteAttempts >= 1 else {
                throw MSALFailure(
                    .internal, internalCode: .internalErrorInvalidParameter,
                    message: "partitionWriteAttempts must be at least 1 (it is \(config.partitionWriteAttempts))")
            }
            backing = .partitioned(store, attempts: config.partitionWriteAttempts)
        }
        state = Mutex(State(contents: TokenCacheContents(), loaded: false))
        hookQueue.setSpecific(key: hookQueueKey, value: true)
    }

    /// Where proof keys are kept beside this cache (``ProofKeys``): a file beside the cache file, an
    /// item beside the Secret Service item, or memory (a memory, custom or partitioned cache, or a
    /// Secret Service cache that fell back to memory). Deciding it may look the Secret Service up.
    package func proofKeyPlace() throws -> ProofKeys.Place {
        switch backing {
        case .file(let file): return .file(cachePath: file.path)
        case .secretService(let store):
            switch try store.resolved() {
            case .file(let file): return .file(cachePath: file.path)
            case .secretService(let item): return .secretService(store, item)
            case .memory: return .memory
            }
        case .memory, .custom, .partitioned: return .memory
        }
    }

    /// The cache file, when the cache is stored in one; for the Secret Service, its signal file,
    /// whose lock files (and refresh locks) order the processes that share the item.
    package var file: TokenCacheFile? {
        switch backing {
        case .file(let file): return file
        case .secretService(let store):
            switch store.resolvedIfKnown {
            case .memory: return nil
            case .file(let file): return file
            case .secretService, nil: return store.signal
            }
        case .memory, .custom, .partitioned: return nil
        }
    }

    /// Runs `body` on the current contents without changing them.
    package func read<T: Sendable>(
        clientID: String, partition: TokenCachePartition? = nil, _ body: (TokenCacheContents) throws -> T
    ) throws -> T {
        switch backing {
        case .memory:
            return try state.withLock { try body($0.contents) }
        case .file(let file):
            return try readFile(file, body)
        case .custom(let serializer):
            return try withHooks(serializer, clientID: clientID, partition: partition, isWrite: false) { contents in
                try body(contents)
            }
        case .secretService(let store):
            switch try store.resolved() {
            case .memory: return try state.withLock { try body($0.contents) }
            case .file(let file): return try readFile(file, body)
            case .secretService(let item): return try readSecret(store, item, body)
            }
        case .partitioned:
            throw Self.synchronousPartitionedAccess()
        }
    }

    /// ``read(clientID:partition:_:)`` from the cache file.
    private func readFile<T>(_ file: TokenCacheFile, _ body: (TokenCacheContents) throws -> T) throws -> T {
        try readLocked(file, reload: { try reloadIfChanged($0, quarantining: $1) }, body)
    }

    /// `body`'s answer from memory while `file` (the cache file, or the Secret Service's signal
    /// file) is unchanged (one `stat`), else under its shared lock after `reload(access, false)`. A
    /// corrupt document is set aside under the exclusive lock: `reload(access, true)`.
    func readLocked<T>(
        _ file: TokenCacheFile, reload: (TokenCacheFileAccess, Bool) throws -> Void, _ body: (TokenCacheContents) throws -> T
    ) throws -> T {
        if let answered = try readFromMemory(file, body) { return answered }
        do {
            return try file.withLock(exclusive: false) { access in
                try reload(access, false)
                return try state.withLock { try body($0.contents) }
            }
        } catch is CorruptFile {
            // Setting the document aside needs the exclusive lock; check again under it.
            return try file.withLock(exclusive: true) { access in
                try reload(access, true)
                return try state.withLock { try body($0.contents) }
            }
        }
    }

    /// `body`'s answer from the contents in memory when the file has not changed since it was last
    /// read or written under the lock, else `nil`: no system call while the file's watch has seen
    /// no change since the contents were last found to match it (``TokenCacheFileWatcher``), else
    /// one `lstat`.
    func readFromMemory<T>(_ file: TokenCacheFile, _ body: (TokenCacheContents) throws -> T) throws -> T? {
        // Read before the `lstat` below: a change after this moment moves the generation past it.
        let generation = file.watchedGeneration
        var answered = false
        if let generation {
            let answer = try state.withLock { state -> T? in
                guard state.loaded, state.watchedGeneration == generation else { return nil }
                answered = true
                return try body(state.contents)
            }
            if answered { return answer }
        }
        guard let quick = file.quickStamp() else { return nil }
        let answer = try state.withLock { state -> T? in
            guard state.loaded, state.stamp == quick else { return nil }
            answered = true
            if let generation { state.watchedGeneration = generation }
            return try body(state.contents)
        }
        if answered, generation == nil { file.noteReadFromMemory() }
        return answer
    }

    /// Runs `body` on the contents in memory (the memory backing: no I/O, nothing to wait for).
    func withMemoryContents<T>(_ body: (inout TokenCacheContents) throws -> T) rethrows -> T {
        try state.withLock { try body(&$0.contents) }
    }

    /// Runs `body` on the contents and stores them when it changed them.
    package func write<T: Sendable>(
        clientID: String, partition: TokenCachePartition? = nil, _ body: (inout TokenCacheContents) throws -> T
    ) throws -> T {
        switch backing {
        case .memory:
            return try state.withLock { try body(&$0.contents) }
        case .file(let file):
            return try writeFile(file, body)
        case .custom(let serializer):
            return try withHooks(serializer, clientID: clientID, partition: partition, isWrite: true) { contents in
                try body(&contents)
            }
        case .secretService(let store):
            switch try store.resolved() {
            case .memory: return try state.withLock { try body(&$0.contents) }
            case .file(let file): return try writeFile(file, body)
            case .secretService(let item): return try writeSecret(store, item, body)
            }
        case .partitioned:
            throw Self.synchronousPartitionedAccess()
        }
    }

    /// ``write(clientID:partition:_:)`` to the cache file.
    private func writeFile<T>(_ file: TokenCacheFile, _ body: (inout TokenCacheContents) throws -> T) throws -> T {
        try writeLocked(
            file, reload: { try reloadIfChanged($0, quarantining: true) }, persist: { try $0.write($1.document.serialized()) }, body)
    }

    /// `body` applied under `file`'s exclusive lock (the cache file, or the Secret Service's signal
    /// file) after `reload`; when it changed the contents, `persist` stores them and returns the
    /// stamp they are then known by.
    func writeLocked<T>(
        _ file: TokenCacheFile, reload: (TokenCacheFileAccess) throws -> Void,
        persist: (TokenCacheFileAccess, TokenCacheContents) throws -> TokenCacheFileStamp, _ body: (inout TokenCacheContents) throws -> T
    ) throws -> T {
        try file.withLock(exclusive: true) { access in
            try reload(access)
            // The exclusive file lock keeps every other writer, in this process or another, out
            // until the new contents are stored; `state` is held only to copy and to store them.
            var contents = state.withLock { $0.contents }
            let before = contents.revision
            let result = try body(&contents)
            if contents.revision != before {
                let stamp = try persist(access, contents)
                state.withLock { state in
                    state.contents = contents
                    state.stamp = stamp
                    state.loaded = true
                }
            }
            return result
        }
    }

    /// Thrown inside a shared-lock read when the file does not parse, to retry under the exclusive lock.
    struct CorruptFile: Error {}

    /// Reads the file again when its stamp differs from the one the contents came from.
    ///
    /// A file that does not parse is moved aside (`.corrupt-<time>`) when `quarantining` (the
    /// exclusive lock is held), the contents start empty, and the caller gets
    /// ``MSALInternalError/cacheCorrupt`` naming where the file went.
    private func reloadIfChanged(_ access: TokenCacheFileAccess, quarantining: Bool = false, rereads: Int = 3) throws {
        let stamp = try access.stamp()
        if state.withLock({ $0.loaded && $0.stamp == stamp }) { return }
        guard let (source, readStamp) = try access.readStamped() else {
            startEmpty(stamp: nil)
            return
        }
        let document: TokenCacheContents
        switch parse(source) {
        case .success(let value):
            document = value
        case .failure(let error):
            guard error.internalCode == .cacheCorrupt else { throw error }
            guard quarantining else { throw CorruptFile() }
            // A writer that ignores the locks (msal-extensions gives up waiting for its own after 5 s
            // and writes in place) may be half-way through: a file still changing is not corrupt.
            if rereads > 0, try access.isStillChanging(from: readStamp) {
                try reloadIfChanged(access, quarantining: true, rereads: rereads - 1)
                return
            }
            let movedTo = try access.quarantine(reason: error.message)
            startEmpty(stamp: nil)
            var reported = error
            reported.message = "\(error.message). The file was moved to \(movedTo) and the cache starts empty."
            throw reported
        }
        adopt(document, stamp: readStamp)
    }

    /// `source` parsed as a cache document with the cache's environment aliases.
    func parse(_ source: CacheSource) -> Result<TokenCacheContents, MSALFailure> {
        let aliases = state.withLock { $0.contents.aliases }
        do throws(MSALFailure) {
            return .success(try TokenCacheContents(parsing: source, aliases: aliases))
        } catch {
            return .failure(error)
        }
    }

    /// Makes `document`, read as `stamp`, the contents in memory.
    func adopt(_ document: TokenCacheContents, stamp: TokenCacheFileStamp?) {
        state.withLock { state in
            state.contents.replaceContents(with: document)
            state.stamp = stamp
            state.loaded = true
        }
    }

    /// Empties the contents in memory, as stored with `stamp` (`nil`: no file).
    func startEmpty(stamp: TokenCacheFileStamp?) {
        state.withLock { state in
            state.contents.replaceDocument(TokenCacheDocument())
            state.stamp = stamp
            state.loaded = true
        }
    }

    private func withHooks<T: Sendable>(
        _ serializer: any MSALTokenCacheSerializer, clientID: String, partition: TokenCachePartition?, isWrite: Bool,
        _ body: (inout TokenCacheContents) throws -> T
    ) throws -> T {
        if DispatchQueue.getSpecific(key: hookQueueKey) == true {
            throw MSALFailure(
                .internal, internalCode: .cacheHookFailed,
                message:
                    "A token cache hook called back into the token cache, which would wait for itself; hooks must only load or save the document they are given"
            )
        }
        return try hookQueue.sync {
            try withHooksOnQueue(serializer, clientID: clientID, partition: partition, isWrite: isWrite, body)
        }
    }

    /// One whole operation with hooks; runs on `hookQueue`.
    func withHooksOnQueue<T: Sendable>(
        _ serializer: any MSALTokenCacheSerializer, clientID: String, partition: TokenCachePartition?, isWrite: Bool,
        _ body: (inout TokenCacheContents) throws -> T
    ) throws -> T {
        let partitioned = serializer.storesPartitions
        let before = MSALTokenCacheAccess(
            clientId: clientID, partition: partition, suggestsKey: suggestsPartitionKeys, isWrite: isWrite,
            document: partitioned ? TokenCacheDocument() : state.withLock { $0.contents.document }, hasStateChanged: false)
        do {
            try serializer.beforeAccess(before)
        } catch {
            throw Self.hookFailure("beforeAccess", error)
        }
        let (result, changed, document): (T, Bool, TokenCacheDocument) = try state.withLock { state in
            if let loaded = before.takeLoadedDocument() {
                state.contents.replaceDocument(loaded)
            } else if partitioned {
                // The previous operation's partition must not be stored under this one's key.
                state.contents.replaceDocument(TokenCacheDocument())
            }
            let revision = state.contents.revision
            let result = try body(&state.contents)
            return (result, state.contents.revision != revision, state.contents.document)
        }
        let after = MSALTokenCacheAccess(
            clientId: clientID, partition: partition, suggestsKey: suggestsPartitionKeys, isWrite: isWrite, document: document,
            hasStateChanged: changed)
        do {
            try serializer.afterAccess(after)
        } catch {
            throw Self.hookFailure("afterAccess", error)
        }
        return result
    }

    private static func hookFailure(_ hook: String, _ error: any Error) -> MSALFailure {
        MSALFailure(
            .internal, internalCode: .cacheHookFailed,
            message: "The token cache serializer's \(hook) failed: \(error)",
            underlyingError: MSALSendableErrorDescription(domain: "\(type(of: error))", code: 0, description: "\(error)"))
    }
}
