#if MSAL_TSAN
import Foundation

/// A `CheckedContinuation` whose hand-over ThreadSanitizer can see, compiled only into
/// ThreadSanitizer builds (`scripts/sanitize.sh thread` passes `-DMSAL_TSAN`).
///
/// When a continuation is resumed on one thread and the awaiting task goes on on another, the
/// Swift concurrency runtime orders the two with its own atomics inside the uninstrumented
/// `libswift_Concurrency`. ThreadSanitizer never sees that order, so it reports whatever the
/// resuming thread wrote before `resume` and the task reads after its `await` — the resumed value
/// itself included — as a race. `CheckedContinuation+ThreadSanitizer.swift` therefore declares
/// `CheckedContinuation` as this type and `withChecked…Continuation` as the functions below, which
/// shadow the standard library's in every module that imports MSALSupport.
///
/// The fence is an `NSLock`, which ThreadSanitizer intercepts: `resume` locks and unlocks it before
/// handing the value to the runtime, and the awaiting side locks and unlocks it once the `await`
/// returns. The task can only return after `resume` ran, so that unlock happens before that lock,
/// and ThreadSanitizer learns the order the runtime already guarantees — no more.
package struct ThreadSanitizerContinuation<T, E: Error>: Sendable {
    /// The runtime's continuation.
    package let base: _Concurrency.CheckedContinuation<T, E>
    /// The fence shared with the awaiting side.
    package let fence: NSLock

    /// Resumes the task with `value`.
    package func resume(returning value: sending T) {
        pass()
        base.resume(returning: value)
    }

    /// Resumes the task by throwing `error`.
    package func resume(throwing error: E) {
        pass()
        base.resume(throwing: error)
    }

    /// Resumes the task with the value or error in `result`.
    package func resume(with result: sending Result<T, E>) {
        pass()
        base.resume(with: result)
    }

    /// Resumes a task that awaits no value.
    package func resume() where T == Void {
        pass()
        base.resume()
    }

    private func pass() {
        Self.pass(fence)
    }

    /// Locks and unlocks `fence`: the unlock orders all earlier writes of this thread before the
    /// next `lock` of `fence` on any thread.
    fileprivate static func pass(_ fence: NSLock) {
        fence.lock()
        fence.unlock()
    }
}

/// `withCheckedContinuation` handing the body a ``ThreadSanitizerContinuation``.
package func threadSanitizerWithCheckedContinuation<T>(
    isolation: isolated (any Actor)? = #isolation,
    function: String = #function,
    _ body: (ThreadSanitizerContinuation<T, Never>) -> Void
) async -> sending T {
    let fence = NSLock()
    let value = await _Concurrency.withCheckedContinuation(isolation: isolation, function: function) {
        (continuation: _Concurrency.CheckedContinuation<T, Never>) in
        body(ThreadSanitizerContinuation(base: continuation, fence: fence))
    }
    ThreadSanitizerContinuation<T, Never>.pass(fence)
    return value
}

/// `withCheckedThrowingContinuation` handing the body a ``ThreadSanitizerContinuation``.
package func threadSanitizerWithCheckedThrowingContinuation<T>(
    isolation: isolated (any Actor)? = #isolation,
    function: String = #function,
    _ body: (ThreadSanitizerContinuation<T, any Error>) -> Void
) async throws -> sending T {
    let fence = NSLock()
    do {
        let value = try await _Concurrency.withCheckedThrowingContinuation(isolation: isolation, function: function) {
            (continuation: _Concurrency.CheckedContinuation<T, any Error>) in
            body(ThreadSanitizerContinuation(base: continuation, fence: fence))
        }
        ThreadSanitizerContinuation<T, any Error>.pass(fence)
        return value
    } catch {
        ThreadSanitizerContinuation<T, any Error>.pass(fence)
        throw error
    }
}
#endif
