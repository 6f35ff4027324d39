#if MSAL_TSAN
import Foundation

/// A lock with `Synchronization.Mutex`'s shape that ThreadSanitizer can see, compiled only into
/// ThreadSanitizer builds (`scripts/sanitize.sh thread` passes `-DMSAL_TSAN`).
///
/// On Linux, `Mutex` takes and releases its futex inside the toolchain's uninstrumented
/// `libswiftSynchronization`, so ThreadSanitizer never learns that `withLock` orders the closures it
/// runs and reports every piece of state behind a `Mutex` as racing (ten lines reproduce it; an
/// `NSLock` doing the same is clean). In a ThreadSanitizer build MSALSupport's `Mutex` is this
/// type (`Mutex.swift`, the one place that decides), and every module takes `Mutex` from
/// MSALSupport. This type locks a
/// `pthread_mutex_t` through `NSLock`, which ThreadSanitizer intercepts, so what it then reports
/// about our own code is real. Release builds never contain it and keep `Mutex`.
package final class ThreadSanitizerMutex<Value: ~Copyable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only read or written inside `withLock`, under `lock`, and is
    // handed to the closure as `inout sending`, the contract `Synchronization.Mutex` has.
    private let lock = NSLock()
    private nonisolated(unsafe) var value: Value

    /// Creates the lock holding `initialValue`.
    package init(_ initialValue: consuming sending Value) {
        value = initialValue
    }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// Runs `body` with the value when the lock is free; returns `nil` without waiting otherwise.
    package func withLockIfAvailable<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result? {
        guard lock.try() else { return nil }
        defer { lock.unlock() }
        return try body(&value)
    }
}
#endif
