import MSALSupport

/// The interactive sign-ins of this process that are waiting for their web UI, so that
/// ``MSALPublicClientApplication/cancelCurrentWebAuthSession()`` can end them.
///
/// MSAL for iOS's `cancelCurrentWebAuthSession` is a class method: it ends the sign-in on screen,
/// whichever application object started it. That makes this registry process-wide state: a
/// constant reference to an object whose only mutable state is behind its `Mutex`.
package final class WebAuthSessions: Sendable {
    /// The one registry of the process.
    package static let shared = WebAuthSessions()

    /// A registry of its own (tests: so that canceling cannot reach other tests' sign-ins).
    package init() {}

    private struct State {
        var next: UInt64 = 0
        var cancels: [UInt64: @Sendable () -> Void] = [:]
    }

    private let state = Mutex(State())

    /// Runs `operation` (an interactive request's wait for its web UI) so that
    /// ``cancelAll()`` can cancel it: it then ends with `CancellationError` (or the error the
    /// operation throws when canceled). Canceling the calling task cancels it too.
    ///
    /// The wait is registered before `operation` starts: a cancel that comes as soon as the web UI
    /// shows the page (the operation's first step, which may run on another thread at once) always
    /// finds it, and a cancel before the task exists cancels it as it starts.
    package func cancellable<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let pending = Pending<T>()
        let id = state.withLock { state -> UInt64 in
            state.next &+= 1
            state.cancels[state.next] = { pending.cancel() }
            return state.next
        }
        defer { _ = state.withLock { $0.cancels.removeValue(forKey: id) } }
        let task = Task { try await operation() }
        pending.start(task)
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// One registered wait: its task once started, and whether a cancel came first.
    private final class Pending<T: Sendable>: Sendable {
        private let state = Mutex<(canceled: Bool, task: Task<T, any Error>?)>((false, nil))

        func cancel() {
            let task = state.withLock { state -> Task<T, any Error>? in
                state.canceled = true
                return state.task
            }
            task?.cancel()
        }

        func start(_ task: Task<T, any Error>) {
            let canceled = state.withLock { state -> Bool in
                state.task = task
                return state.canceled
            }
            if canceled { task.cancel() }
        }
    }

    /// Cancels every waiting sign-in; `true` when there was one.
    package func cancelAll() -> Bool {
        let cancels = state.withLock { state -> [@Sendable () -> Void] in
            Array(state.cancels.values)
        }
        for cancel in cancels { cancel() }
        return !cancels.isEmpty
    }
}
