import Dispatch

extension MSALParameters {
    /// Runs `work` in a task and hands its outcome to `completion`, on the parameters'
    /// ``completionBlockQueue`` when one is set, or at once on the task's thread otherwise.
    ///
    /// Every completion-block API goes through here, so the queue is honoured by all of them.
    package static func complete<Value: Sendable>(
        _ parameters: MSALParameters?,
        _ completion: @escaping @Sendable (Value?, (any Error)?) -> Void,
        _ work: @escaping @Sendable () async throws -> Value
    ) {
        let queue = parameters?.completionBlockQueue
        Task {
            let outcome: Result<Value, any Error>
            do {
                outcome = .success(try await work())
            } catch {
                outcome = .failure(error)
            }
            deliver(on: queue) {
                switch outcome {
                case .success(let value): completion(value, nil)
                case .failure(let error): completion(nil, error)
                }
            }
        }
    }

    /// Calls `body` on `queue`, or at once when there is none.
    package static func deliver(on queue: DispatchQueue?, _ body: @escaping @Sendable () -> Void) {
        if let queue {
            queue.async(execute: body)
        } else {
            body()
        }
    }
}
