import Foundation
import MSALSupport
import NIOCore

/// The state one loopback listener shares between its connections, its timer and its caller.
///
/// The outcome is settled exactly once — by the redirect, an unusable redirect, the timeout, cancellation or
/// ``settle(_:answering:)`` from `close()` — and settling closes the server sockets and every connection
/// except the one answering the redirect, which closes itself once its page is written.
final class LoopbackListenerCore: Sendable {
    typealias Outcome = Result<LoopbackRedirect, MSALFailure>

    private struct State {
        var rules: LoopbackRequestRules?
        var outcome: Outcome?
        var waiters: [CheckedContinuation<Outcome, Never>] = []
        var servers: [any Channel] = []
        var connections: [ObjectIdentifier: Connection] = [:]
        var admitted = 0
        var timer: Scheduled<Void>?
        var start: Start?
    }

    /// The single-use start URL: where it redirects, and whether it was served.
    private struct Start {
        var location: URL
        var served = false
    }

    /// What to do with a request for the start path.
    enum StartClaim: Equatable {
        /// The first `GET`: redirect to the authorization URL.
        case serve(URL)
        /// A second request (or the first is not a `GET`): the sign-in was ended with `startURLReused`.
        case reused
        /// The sign-in has already ended.
        case finished
    }

    /// One open connection: its channel, when it was admitted, and whether its request has begun.
    private struct Connection {
        var channel: any Channel
        var order: Int
        var hasSentRequest = false
    }

    /// The most bytes one connection may send.
    let maximumRequestBytes: Int
    /// How long one connection may take to deliver its request.
    let connectionTimeout: TimeAmount
    /// The most connections served at once. When they are all open, a new one takes the place of the
    /// oldest that has not begun a request (a silent client never keeps the browser out); only when
    /// every one is mid-request is the new one closed at once.
    let maximumConnections: Int
    /// The pages answered to the browser.
    let pages: LoopbackPages
    private let state = Mutex(State())

    init(maximumRequestBytes: Int, connectionTimeout: TimeAmount, maximumConnections: Int, pages: LoopbackPages) {
        self.maximumRequestBytes = maximumRequestBytes
        self.connectionTimeout = connectionTimeout
        self.maximumConnections = maximumConnections
        self.pages = pages
    }

    /// Starts serving with `rules` once every server socket is bound; `timer` settles the timeout.
    func activate(rules: LoopbackRequestRules, servers: [any Channel], timer: Scheduled<Void>) {
        let settled = state.withLock { state -> Bool in
            state.rules = rules
            guard state.outcome == nil else { return true }
            state.servers = servers
            state.timer = timer
            return false
        }
        if settled {
            timer.cancel()
            servers.forEach { $0.close(promise: nil) }
        }
    }

    /// The rules, once the listener is active.
    var rules: LoopbackRequestRules? {
        state.withLock { $0.rules }
    }

    /// Offers the single-use start path `path`, which redirects once to `location`.
    func offerStart(path: String, location: URL) {
        state.withLock { state in
            state.rules?.startPath = path
            state.start = Start(location: location)
        }
    }

    /// Claims the start URL for a request with `method`. The first `GET` gets the location; anything
    /// else — a second request, whoever sent the first, or another method — means the URL is known
    /// outside the browser, and settles the sign-in as ``MSALInternalError/startURLReused``.
    func claimStart(method: String, answering channel: any Channel) -> StartClaim {
        let claim = state.withLock { state -> StartClaim in
            guard state.outcome == nil, var start = state.start else { return .finished }
            guard !start.served, method == "GET" else { return .reused }
            start.served = true
            state.start = start
            return .serve(start.location)
        }
        guard claim == .reused else { return claim }
        return settle(.failure(.startURLReused()), answering: channel) ? .reused : .finished
    }

    /// The outcome if it is settled, without waiting for it.
    var settledOutcome: Outcome? {
        state.withLock { $0.outcome }
    }

    /// Registers a new connection; `false` when the listener is done, or full of connections that
    /// have all begun a request. A full listener closes its oldest silent connection to make room.
    func admit(_ channel: any Channel) -> Bool {
        let (admitted, evicted) = state.withLock { state -> (Bool, (any Channel)?) in
            guard state.outcome == nil else { return (false, nil) }
            var evicted: (any Channel)?
            if state.connections.count >= maximumConnections {
                guard let oldest = state.connections.filter({ !$0.value.hasSentRequest }).min(by: { $0.value.order < $1.value.order })
                else { return (false, nil) }
                evicted = state.connections.removeValue(forKey: oldest.key)?.channel
            }
            state.admitted += 1
            state.connections[ObjectIdentifier(channel)] = Connection(channel: channel, order: state.admitted)
            return (true, evicted)
        }
        evicted?.close(promise: nil)
        return admitted
    }

    /// Records that `channel` has begun its request (its head arrived): it is no longer evicted for room.
    func markRequestBegun(_ channel: any Channel) {
        state.withLock { state in
            state.connections[ObjectIdentifier(channel)]?.hasSentRequest = true
        }
    }

    /// How many open connections have begun their request (for tests: such a connection is never
    /// evicted for room).
    var requestsBegun: Int {
        state.withLock { $0.connections.values.filter(\.hasSentRequest).count }
    }

    /// Forgets a closed connection.
    func release(_ channel: any Channel) {
        state.withLock { state in
            _ = state.connections.removeValue(forKey: ObjectIdentifier(channel))
        }
    }

    /// Settles the outcome unless it already is; returns whether this call settled it.
    ///
    /// Closes the server sockets and every connection but `answering`, cancels the timer and resumes the waiters.
    @discardableResult
    func settle(_ outcome: Outcome, answering: (any Channel)? = nil) -> Bool {
        let taken = state.withLock {
            state -> (waiters: [CheckedContinuation<Outcome, Never>], channels: [any Channel], timer: Scheduled<Void>?)? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            if let answering {
                state.connections.removeValue(forKey: ObjectIdentifier(answering))
            }
            defer {
                state.waiters = []
                state.servers = []
                state.connections = [:]
                state.timer = nil
            }
            return (state.waiters, state.servers + state.connections.values.map(\.channel), state.timer)
        }
        guard let taken else { return false }
        taken.timer?.cancel()
        taken.channels.forEach { $0.close(promise: nil) }
        taken.waiters.forEach { $0.resume(returning: outcome) }
        return true
    }

    /// The outcome, once settled. Canceling the waiting task settles it as canceled.
    func outcome() async -> Outcome {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                let settled = state.withLock { state -> Outcome? in
                    if let outcome = state.outcome { return outcome }
                    state.waiters.append(continuation)
                    return nil
                }
                if let settled {
                    continuation.resume(returning: settled)
                }
            }
        } onCancel: {
            settle(.failure(.loopbackCanceled()))
        }
    }
}
