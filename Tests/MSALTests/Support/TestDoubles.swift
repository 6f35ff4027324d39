import Foundation
import MSAL
import MSALSupport

/// A clock that stands still until a test moves it; `sleep` advances it at once and is recorded.
final class ManualClock: MSALClock {
    private let state: Mutex<(now: Date, sleeps: [Double])>

    init(_ secondsSince1970: Double = 1_700_001_000) {
        state = Mutex((Date(timeIntervalSince1970: secondsSince1970), []))
    }

    func now() -> Date { state.withLock { $0.now } }

    /// Moves the clock instead of waiting, and records the wait.
    func sleep(seconds: Double) async throws {
        try Task.checkCancellation()
        state.withLock {
            $0.sleeps.append(seconds)
            $0.now = $0.now.addingTimeInterval(max(0, seconds))
        }
    }

    func advance(by seconds: Double) {
        state.withLock { $0.now = $0.now.addingTimeInterval(seconds) }
    }

    /// Every wait asked of the clock, in order.
    var sleeps: [Double] { state.withLock { $0.sleeps } }
}

/// Answers requests from a queue of steps and records what it was sent.
final class QueueTransport: MSALHTTPTransport {
    enum Step: Sendable {
        case respond(MSALHTTPResponse)
        case fail(MSALFailure)
        case failWith(any Error & Sendable)
    }

    private let state: Mutex<(steps: [Step], requests: [MSALHTTPRequest])>

    init(_ steps: [Step]) {
        state = Mutex((steps, []))
    }

    func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse {
        let step: Step = state.withLock {
            $0.requests.append(request)
            return $0.steps.isEmpty
                ? .fail(MSALFailure(.internal, internalCode: .internalErrorUnexpected, message: "no step left")) : $0.steps.removeFirst()
        }
        switch step {
        case .respond(let response): return response
        case .fail(let error): throw error
        case .failWith(let error): throw error
        }
    }

    var requests: [MSALHTTPRequest] { state.withLock { $0.requests } }
    var callCount: Int { requests.count }
}

extension MSALHTTPResponse {
    static func json(_ status: Int, _ body: String, headers: MSALHTTPHeaders = [:]) -> MSALHTTPResponse {
        var headers = headers
        headers.add(name: "Content-Type", value: "application/json")
        return MSALHTTPResponse(statusCode: status, headers: headers, text: body)
    }
}
