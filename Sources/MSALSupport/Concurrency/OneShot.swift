/// A result delivered once and awaited by one task, whose wait ends early when that task is
/// cancelled: the package's one continuation-with-cancellation helper.
///
/// `deliver` may come before, during or after `value()` and from any thread; only the first
/// delivery counts. A cancelled waiter gets `CancellationError` at once, and the later delivery is
/// dropped.
package final class OneShot<Value: Sendable>: Sendable {
    private enum State {
        case pending
        case waiting(CheckedContinuation<Value, any Error>)
        case done(Result<Value, any Error>)
        case taken
    }

    private let state = Mutex(State.pending)

    /// Creates an empty one-shot.
    package init() {}

    /// Delivers `result` to the waiter (now or when it comes); later deliveries are ignored.
    package func deliver(_ result: Result<Value, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            switch state {
            case .pending:
                state = .done(result)
                return nil
            case .waiting(let continuation):
                state = .taken
                return continuation
            case .done, .taken:
                return nil
            }
        }
        waiter?.resume(with: result)
    }

    /// The delivered result; `CancellationError` as soon as the calling task is cancelled.
    package func value() async throws -> Value {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let ready = state.withLock { state -> Result<Value, any Error>? in
                    switch state {
                    case .pending:
                        state = .waiting(continuation)
                        return nil
                    case .done(let result):
                        state = .taken
                        return result
                    case .waiting, .taken:
                        return .failure(OneShotMisuse())
                    }
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            deliver(.failure(CancellationError()))
        }
    }
}

/// `OneShot.value()` was called twice.
package struct OneShotMisuse: Error {}
