import Foundation
import MSALSupport

/// An ``MSALHTTPTransport`` that answers requests from an ``MSALRecordedFixture`` instead of the network.
///
/// Each request is answered by the first interaction, in fixture order, that it matches and
/// that is not used up (a non-repeatable interaction answers once). A request that matches
/// nothing throws an ``MSALFailure`` (``MSALError/internal``, ``MSALInternalError/networkFailure``)
/// whose message names the request, the closest interaction and why it did not match; the
/// request is also recorded in ``unmatchedRequests``. After the code under test ran, call
/// ``verifyAllInteractionsUsed()`` to check that nothing recorded was skipped.
///
/// ```swift
/// let transport = try MSALReplayTransport(contentsOf: fixtureURL)
/// // … run the code under test with `transport` …
/// try transport.verifyAllInteractionsUsed()
/// ```
///
/// The transport is safe to use from many tasks at once: matching and bookkeeping happen
/// under one lock, so two concurrent requests never consume the same interaction.
public final class MSALReplayTransport: MSALHTTPTransport {
    // Sendable without @unchecked: every stored property is immutable, and all mutable
    // bookkeeping lives in a `Mutex`, which is Sendable.

    /// A request that matched no interaction.
    public struct UnmatchedRequest: Sendable, Hashable {
        /// The request as sent.
        public var request: MSALHTTPRequest
        /// The message of the error thrown for it: the request, the closest interaction and the difference.
        public var message: String

        /// Creates a record.
        public init(request: MSALHTTPRequest, message: String) {
            self.request = request
            self.message = message
        }
    }

    private struct State {
        var used: [Bool]
        var sent: [MSALHTTPRequest] = []
        var unmatched: [UnmatchedRequest] = []
    }

    /// The fixture being replayed.
    public let fixture: MSALRecordedFixture
    private let candidates: [ReplayCandidate]
    private let state: Mutex<State>

    /// Creates a transport that replays `fixture`.
    public init(fixture: MSALRecordedFixture) {
        self.fixture = fixture
        self.candidates = fixture.interactions.enumerated().map { ReplayCandidate(index: $0.offset, interaction: $0.element) }
        self.state = Mutex(State(used: Array(repeating: false, count: fixture.interactions.count)))
    }

    /// Loads the fixture at `url` and creates a transport that replays it.
    ///
    /// - Throws: the errors of ``MSALRecordedFixture/init(contentsOf:)``.
    public convenience init(contentsOf url: URL) throws {
        self.init(fixture: try MSALRecordedFixture(contentsOf: url))
    }

    /// Every request received, in order, whether it matched or not.
    public var sentRequests: [MSALHTTPRequest] {
        state.withLock { $0.sent }
    }

    /// The non-repeatable interactions no request has matched yet, in fixture order.
    public var unusedInteractions: [MSALRecordedFixture.Interaction] {
        state.withLock { state in
            candidates.filter { !$0.interaction.repeatable && !state.used[$0.index] }.map(\.interaction)
        }
    }

    /// The requests that matched no interaction, in order.
    public var unmatchedRequests: [UnmatchedRequest] {
        state.withLock { $0.unmatched }
    }

    /// Answers `request` with the response of the first available interaction it matches.
    ///
    /// - Throws: ``MSALFailure`` with internal code ``MSALInternalError/networkFailure`` when no
    ///   interaction matches, and ``MSALInternalError/bodyTooLarge`` when the recorded body is
    ///   larger than `limits.maximumResponseBodySize` (the interaction is then used up, as the
    ///   server did answer).
    public func send(_ request: MSALHTTPRequest, limits: MSALHTTPLimits) async throws -> MSALHTTPResponse {
        let key = ReplayURLKey(request.url)
        let outcome: Result<ReplayCandidate, MSALFailure> = state.withLock { state in
            state.sent.append(request)
            for candidate in candidates where candidate.interaction.repeatable || !state.used[candidate.index] {
                if candidate.mismatch(for: request, key: key) == nil {
                    state.used[candidate.index] = true
                    return .success(candidate)
                }
            }
            let message = unmatchedMessage(for: request, key: key, used: state.used)
            state.unmatched.append(UnmatchedRequest(request: request, message: message))
            return .failure(MSALFailure(.internal, internalCode: .networkFailure, message: message))
        }
        let candidate = try outcome.get()
        guard candidate.response.body.count <= limits.maximumResponseBodySize else {
            throw MSALFailure(
                .internal, internalCode: .bodyTooLarge,
                message:
                    "The response to \(request.method) \(request.url.absoluteString) has \(candidate.response.body.count) bytes, more than the limit of \(limits.maximumResponseBodySize) (replayed from \(candidate.label) of fixture \"\(fixture.name)\")"
            )
        }
        return candidate.response
    }

    /// Throws unless every non-repeatable interaction was used and every request matched one.
    ///
    /// - Throws: ``MSALFailure`` (``MSALError/internal``, ``MSALInternalError/internalErrorUnexpected``)
    ///   listing the unused interactions and the unmatched requests.
    public func verifyAllInteractionsUsed() throws {
        let (unused, unmatched) = state.withLock { state in
            (candidates.filter { !$0.interaction.repeatable && !state.used[$0.index] }, state.unmatched)
        }
        guard !unused.isEmpty || !unmatched.isEmpty else { return }
        var lines: [String] = []
        if !unused.isEmpty {
            lines.append(
                "\(unused.count) interaction(s) of fixture \"\(fixture.name)\" never used: "
                    + unused.map(\.label).joined(separator: ", "))
        }
        if !unmatched.isEmpty {
            lines.append(
                "\(unmatched.count) request(s) matched no interaction: "
                    + unmatched.map { "\($0.request.method) \($0.request.url.absoluteString)" }.joined(separator: ", "))
        }
        throw MSALFailure(.internal, internalCode: .internalErrorUnexpected, message: lines.joined(separator: "; "))
    }

    private func unmatchedMessage(for request: MSALHTTPRequest, key: ReplayURLKey, used: [Bool]) -> String {
        let head = "No recorded interaction of fixture \"\(fixture.name)\" matches \(request.method) \(request.url.absoluteString)"
        var closest: (candidate: ReplayCandidate, mismatch: ReplayMismatch)?
        for candidate in candidates {
            let mismatch: ReplayMismatch
            if let difference = candidate.mismatch(for: request, key: key) {
                mismatch = difference
            } else {
                mismatch = .alreadyUsed
            }
            if closest == nil || closest!.mismatch < mismatch {
                closest = (candidate, mismatch)
            }
        }
        guard let closest else { return head + ": the fixture has no interactions." }
        return head + ". Closest: \(closest.candidate.label): \(closest.mismatch.reason)."
    }
}
