/// A result delivered once and awaited by one task, whose wait ends early when that task is
/// cancelled: the package's one continuation-with-cancellation helper.
///
/// `deliver` may come before, during or after the wait and from any thread; only the first
/// delivery counts. A waiter in ``value()`` that is cancelled gets `CancellationError` at once, and
/// the later delivery is dropped; ``result()`` waits for the delivery whatever happens.
package final class OneShot<Value: Sendable>: Sendable {
    private enum State {
        case pending
        case waiting(@Sendable (Result<Value, any Error>) -> Void)
        case done(Result<Value, any Error>)
        case taken
    }

    private let state = Mutex(State.pending)

    /// Creates an empty one-shot.
    package init() {}

    /// Delivers `result` to the waiter (now or when it comes). Returns whether this delivery
    /// counted: `false` when another came first (a cancellation, for example).
    @discardableResult
    package func deliver(_ result: Result<Value, any Error>) -> Bool {
        let (counted, waiter) = state.withLock { state -> (Bool, (@Sendable (Result<Value, any Error>) -> Void)?) in
            switch state {
            case .pending:
                state = .done(result)
                return (true, nil)
            case .waiting(let resume):
                state = .taken
                return (true, resume)
            case .done, .taken:
                return (false, nil)
            }
        }
        waiter?(result)
        return counted
    }

    /// The delivered value; `CancellationError` as soon as the calling task is cancelled.
    package func value() async throws -> Value {
        try await withTaskCancellationHandler {
            try await result().get()
        } onCancel: {
            deliver(.failure(CancellationError()))
        }
    }

    /// The delivered result, however long it takes: cancellation does not end this wait.
    package func result() async -> Result<Value, any Error> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, any Error>, Never>) in
            let ready = state.withLock { state -> Result<Value, any Error>? in
                switch state {
                case .pending:
                    state = .waiting { continuation.resume(returning: $0) }
                    return nil
                case .done(let result):
                    state = .taken
                    return result
                case .waiting, .taken:
                    return .failure(OneShotMisuse())
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// A one-shot was awaited twice.
package struct OneShotMisuse: Error {}
