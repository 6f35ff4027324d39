import Foundation
import MSALSupport

extension TokenCache {
    /// ``read(clientID:partition:_:)`` for async callers, without blocking a cooperative thread.
    ///
    /// The memory backing, and the file when it has not changed since this process last read or
    /// wrote it (one `stat`), answer at once. Otherwise the file's lock and read run on
    /// ``BlockingWork``, and hooks run on the cache's serial hook queue.
    package func read<T: Sendable>(
        clientID: String, partition: TokenCachePartition? = nil, _ body: @escaping @Sendable (TokenCacheContents) throws -> T
    ) async throws -> T {
        if let answered = try readIfInMemory(body) { return answered }
        return try await readFromStorage(clientID: clientID, partition: partition, body)
    }

    /// The part of ``read(clientID:partition:_:)`` that memory did not answer: the file's lock and
    /// read on ``BlockingWork``, the app's hooks on the cache's serial hook queue. For callers that
    /// tried ``readIfInMemory(_:)`` first.
    package func readFromStorage<T: Sendable>(
        clientID: String, partition: TokenCachePartition? = nil, _ body: @escaping @Sendable (TokenCacheContents) throws -> T
    ) async throws -> T {
        switch backing {
        case .memory:
            return try withMemoryContents { try body($0) }
        case .file, .secretService:
            return try await BlockingWork.shared.run { try self.read(clientID: clientID, partition: partition, body) }
        case .custom(let serializer):
            return try await onHookQueue {
                try self.withHooksOnQueue(serializer, clientID: clientID, partition: partition, isWrite: false) {
                    try body($0)
                }
            }
        case .partitioned(let store, _):
            return try await readPartition(store, partition: partition, body)
        }
    }

    /// ``read(clientID:partition:_:)`` when it can answer at once: from the memory backing, or
    /// from memory when the file has not changed since this process last read or wrote it (one
    /// `stat`). `nil` when the answer needs the file's lock or the app's hooks: then call
    /// ``readFromStorage(clientID:partition:_:)``. `body` does not escape, so a hot path (a silent cache hit)
    /// allocates nothing to pass it.
    package func readIfInMemory<T>(_ body: (TokenCacheContents) throws -> T) throws -> T? {
        switch backing {
        case .memory: return try withMemoryContents { try body($0) }
        case .file(let file): return try readFromMemory(file, body)
        case .custom, .partitioned: return nil
        case .secretService(let store):
            switch store.resolvedIfKnown {
            case .memory: return try withMemoryContents { try body($0) }
            case .file(let file): return try readFromMemory(file, body)
            case .secretService: return try readFromMemory(store.signal, body)
            case nil: return nil
            }
        }
    }

    /// ``write(clientID:partition:_:)`` for async callers, without blocking a cooperative thread:
    /// the file's lock, read, write, `fsync` and rename run on ``BlockingWork``, and hooks on the
    /// cache's serial hook queue.
    package func write<T: Sendable>(
        clientID: String, partition: TokenCachePartition? = nil, _ body: @escaping @Sendable (inout TokenCacheContents) throws -> T
    ) async throws -> T {
        switch backing {
        case .memory:
            return try withMemoryContents(body)
        case .secretService(let store):
            if case .memory = store.resolvedIfKnown { return try withMemoryContents(body) }
            return try await BlockingWork.shared.run { try self.write(clientID: clientID, partition: partition, body) }
        case .file:
            return try await BlockingWork.shared.run { try self.write(clientID: clientID, partition: partition, body) }
        case .custom(let serializer):
            return try await onHookQueue {
                try self.withHooksOnQueue(serializer, clientID: clientID, partition: partition, isWrite: true, body)
            }
        case .partitioned(let store, let attempts):
            return try await writePartition(store, attempts: attempts, partition: partition, body)
        }
    }

    /// Runs `work` on the hook queue, after the operations queued before it. The wait does not end
    /// on cancellation: the operation may already be running the application's hooks.
    private func onHookQueue<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let done = OneShot<T>()
        hookQueue.async { done.deliver(Result(catching: work)) }
        return try await done.result().get()
    }
}
