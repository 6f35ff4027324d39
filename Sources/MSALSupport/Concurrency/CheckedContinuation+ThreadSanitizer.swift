#if MSAL_TSAN
// In ThreadSanitizer builds (`-DMSAL_TSAN`, `scripts/sanitize.sh thread`) these declarations
// shadow the standard library's checked continuations in every module that imports MSALSupport
// (a module's declarations shadow those of the modules it imports, `_Concurrency` included) with
// versions whose hand-over ThreadSanitizer can see; ``ThreadSanitizerContinuation`` explains why.
// Release and debug builds have none of them and use the standard library's.

/// `_Concurrency.CheckedContinuation` in other builds.
package typealias CheckedContinuation<T, E: Error> = ThreadSanitizerContinuation<T, E>

/// `_Concurrency.withCheckedContinuation` in other builds.
package func withCheckedContinuation<T>(
    isolation: isolated (any Actor)? = #isolation,
    function: String = #function,
    _ body: (CheckedContinuation<T, Never>) -> Void
) async -> sending T {
    await threadSanitizerWithCheckedContinuation(isolation: isolation, function: function, body)
}

/// `_Concurrency.withCheckedThrowingContinuation` in other builds.
package func withCheckedThrowingContinuation<T>(
    isolation: isolated (any Actor)? = #isolation,
    function: String = #function,
    _ body: (CheckedContinuation<T, any Error>) -> Void
) async throws -> sending T {
    try await threadSanitizerWithCheckedThrowingContinuation(isolation: isolation, function: function, body)
}
#endif
