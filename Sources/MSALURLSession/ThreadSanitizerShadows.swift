#if MSAL_TSAN
import MSALJOSE

// In ThreadSanitizer builds (`-DMSAL_TSAN`, `scripts/sanitize.sh thread`) these declarations
// shadow the standard library's `Mutex` and checked continuations inside this module (MSALURLSession:
// its own copy, as MSAL's are package declarations that would clash with Synchronization here) with
// versions whose ordering ThreadSanitizer can see (ThreadSanitizerMutex and
// ThreadSanitizerContinuation in MSALJOSE explain why). Release and debug builds use the
// standard library's.

/// `Synchronization.Mutex` in other builds.
typealias Mutex<Value: ~Copyable> = ThreadSanitizerMutex<Value>

/// `_Concurrency.CheckedContinuation` in other builds.
typealias CheckedContinuation<T, E: Error> = ThreadSanitizerContinuation<T, E>

/// `_Concurrency.withCheckedContinuation` in other builds.
func withCheckedContinuation<T>(
    isolation: isolated (any Actor)? = #isolation,
    function: String = #function,
    _ body: (CheckedContinuation<T, Never>) -> Void
) async -> sending T {
    await threadSanitizerWithCheckedContinuation(isolation: isolation, function: function, body)
}

/// `_Concurrency.withCheckedThrowingContinuation` in other builds.
func withCheckedThrowingContinuation<T>(
    isolation: isolated (any Actor)? = #isolation,
    function: String = #function,
    _ body: (CheckedContinuation<T, any Error>) -> Void
) async throws -> sending T {
    try await threadSanitizerWithCheckedThrowingContinuation(isolation: isolation, function: function, body)
}
#endif
