import Foundation
import MSALSupport

/// A web UI that plays the user from a script, for testing an app's interactive sign-in without a
/// browser.
///
/// Pass it with ``MSALWebviewParameters/init(webUI:)``. Each time swift-msal presents an authorization
/// URL, the web UI records it (``presentations``, ``authorizationURLs``) and answers with the next
/// ``Action`` of its script: a redirect it "captured" (built from the request's own `state`, so a test
/// can say "answer with code X"), an error redirect, the user closing the page, a browser that cannot
/// start, a hand-off to the loopback listener (the web UI then requests the redirect URL on
/// `127.0.0.1` itself, as a browser would), or a wait the test ends later with ``resume(with:)``.
///
/// ```swift
/// let webUI = MSALScriptedWebUI(.code("code-1"))
/// let parameters = MSALInteractiveTokenParameters(
///     scopes: ["User.Read"], webviewParameters: MSALWebviewParameters(webUI: webUI))
/// let result = try await application.acquireToken(with: parameters)
/// #expect(webUI.presentations.first?.parameter("prompt") == nil)  // the default: promptIfNecessary
/// ```
///
/// A presentation with no action left in the script throws an ``MSALFailure`` with internal code
/// ``MSALInternalError/internalErrorUnexpected``. Safe to use from many tasks at once.
public final class MSALScriptedWebUI: MSALWebUI {
    // Sendable without @unchecked: the only stored property is a Mutex, which is Sendable.

    /// How the scripted user answers one presentation.
    public enum Action: Sendable, Hashable {
        /// Captures a redirect to the request's redirect URI carrying `parameters` and the request's own
        /// `state` (taken from the authorization URL): in the query, or with `inFragment` in the fragment
        /// (a `response_mode=fragment` redirect).
        case redirect([URLQueryItem], inFragment: Bool = false)
        /// Captures a redirect carrying `parameters` and `state` instead of the request's own — the answer
        /// to some other request, which swift-msal must refuse.
        case redirectWithState(String, [URLQueryItem] = [])
        /// Captures exactly `url`.
        case redirectURL(URL)
        /// Captures an error redirect: `error` (such as `access_denied`), and `error_description` and
        /// `error_subcode` when given, with the request's own `state`.
        case error(String, description: String? = nil, subError: String? = nil)
        /// The user closes the sign-in page: throws an ``MSALFailure`` with code
        /// ``MSALError/userCanceled`` and internal code ``MSALInternalError/internalErrorSessionCanceled``.
        case cancel
        /// The browser cannot start: throws an ``MSALFailure`` with internal code
        /// ``MSALInternalError/browserLaunchFailed``, as an app's web UI might, without
        /// ``MSALFailure/authorizationURL`` (swift-msal adds it).
        case launchFailure
        /// Hands the URL to a "browser" and returns `nil`, so swift-msal waits on its loopback listener;
        /// the browser then requests each of `deliveries` on `127.0.0.1`, in order, in the background.
        /// See ``deliveryResults()``.
        case handOff([Delivery])
        /// Answers nothing until the test calls ``resume(with:)`` or the request is canceled
        /// (swift-msal cancels a presentation when the loopback listener receives the redirect first).
        case wait

        /// Captures a redirect with the authorization code `code` and the request's own `state`.
        public static func code(_ code: String) -> Action {
            .redirect([URLQueryItem(name: "code", value: code)])
        }

        /// Hands off to the loopback listener, which then receives the code `code` with the request's own `state`.
        public static func handOffCode(_ code: String) -> Action {
            .handOff([.redirect([URLQueryItem(name: "code", value: code)])])
        }
    }

    /// A request the scripted browser sends to the loopback listener after a ``Action/handOff(_:)``.
    public struct Delivery: Sendable, Hashable {
        /// Which `state` the request carries.
        public enum State: Sendable, Hashable {
            /// The request's own, from the authorization URL.
            case request
            /// This value instead.
            case value(String)
            /// None.
            case omitted
        }

        /// The query parameters besides `state`, in order.
        public var parameters: [URLQueryItem]
        /// The `state` to add after them.
        public var state: State
        /// The path to request; `nil` is the redirect URI's own.
        public var path: String?

        /// Creates a delivery.
        public init(parameters: [URLQueryItem], state: State = .request, path: String? = nil) {
            self.parameters = parameters
            self.state = state
            self.path = path
        }

        /// A request to the redirect URI carrying `parameters` and the request's own `state`.
        public static func redirect(_ parameters: [URLQueryItem]) -> Delivery {
            Delivery(parameters: parameters)
        }
    }

    /// One authorization URL the web UI was shown.
    public struct Presentation: Sendable, Hashable {
        /// The authorization URL, with every request parameter.
        public let authorizationURL: URL
        /// The redirect URI the request names.
        public let redirectURI: URL

        /// The authorization URL's query parameters, percent-decoded, in order.
        public var queryItems: [URLQueryItem] {
            MSALFormEncoding.decode(URLComponents(url: authorizationURL, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "")
                .map { URLQueryItem(name: $0.0, value: $0.1) }
        }

        /// The value of the authorization URL's query parameter `name` (the first, if repeated), or `nil`.
        public func parameter(_ name: String) -> String? {
            queryItems.first { $0.name == name }?.value
        }
    }

    /// What the scripted browser got back for one ``Delivery``.
    public struct DeliveryResult: Sendable, Hashable {
        /// The URL requested.
        public var url: URL
        /// The HTTP status, or `nil` when no response arrived.
        public var statusCode: Int?
        /// The response body as UTF-8 text (empty without a response).
        public var body: String
        /// Why no response arrived (connection refused, for example), or `nil`.
        public var failure: String?
    }

    private struct State {
        var script: [Action]
        var presentations: [Presentation] = []
        var nextID: UInt64 = 0
        /// Presentations answering ``Action/wait``, oldest first.
        var waiting: [(id: UInt64, continuation: CheckedContinuation<Action, any Error>)] = []
        var canceledWaits: Set<UInt64> = []
        var presentationWaiters: [(id: UInt64, count: Int, continuation: CheckedContinuation<Void, any Error>)] = []
        var canceledPresentationWaits: Set<UInt64> = []
        var deliveries: [Task<[DeliveryResult], Never>] = []

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }

        /// Records `presentation` and takes out the waiters it satisfies.
        mutating func record(_ presentation: Presentation) -> [CheckedContinuation<Void, any Error>] {
            presentations.append(presentation)
            let count = presentations.count
            let ready = presentationWaiters.filter { $0.count <= count }
            presentationWaiters.removeAll { $0.count <= count }
            return ready.map(\.continuation)
        }
    }

    private let state: Mutex<State>

    /// Creates a web UI that answers presentations with `script`, in order.
    public init(_ script: [Action]) {
        state = Mutex(State(script: script))
    }

    /// Creates a web UI that answers presentations with `actions`, in order.
    public convenience init(_ actions: Action...) {
        self.init(actions)
    }

    /// Every presentation so far, in order.
    public var presentations: [Presentation] {
        state.withLock { $0.presentations }
    }

    /// Every authorization URL shown so far, in order.
    public var authorizationURLs: [URL] {
        presentations.map(\.authorizationURL)
    }

    /// The actions not used yet.
    public var remainingScript: [Action] {
        state.withLock { $0.script }
    }

    /// Adds `actions` to the end of the script.
    public func append(_ actions: Action...) {
        state.withLock { $0.script += actions }
    }

    /// Answers the oldest presentation waiting on ``Action/wait`` with `action`.
    ///
    /// - Returns: `false` when no presentation is waiting (nothing happens then).
    @discardableResult
    public func resume(with action: Action) -> Bool {
        let continuation = state.withLock { state in
            state.waiting.isEmpty ? nil : state.waiting.removeFirst().continuation
        }
        continuation?.resume(returning: action)
        return continuation != nil
    }

    /// Returns once the web UI has been shown `count` authorization URLs in all. A presentation that
    /// answers ``Action/wait`` counts once it is waiting, so ``resume(with:)`` can answer it.
    ///
    /// - Throws: `CancellationError` when the calling task is canceled first.
    public func waitForPresentations(_ count: Int) async throws {
        let id = state.withLock { $0.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if state.canceledPresentationWaits.remove(id) != nil { return .failure(CancellationError()) }
                    if state.presentations.count >= count { return .success(()) }
                    state.presentationWaiters.append((id, count, continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                if let index = state.presentationWaiters.firstIndex(where: { $0.id == id }) {
                    return state.presentationWaiters.remove(at: index).continuation
                }
                state.canceledPresentationWaits.insert(id)
                return nil
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// The outcome of every ``Delivery`` sent after a ``Action/handOff(_:)``, in order, once all have
    /// been answered (each request gives up after 30 seconds without an answer).
    public func deliveryResults() async -> [DeliveryResult] {
        let tasks = state.withLock { $0.deliveries }
        var results: [DeliveryResult] = []
        for task in tasks {
            results += await task.value
        }
        return results
    }

    // MARK: MSALWebUI

    /// Records the presentation and plays the next action of the script.
    public func present(authorizationURL: URL, redirectURI: URL) async throws -> URL? {
        let presentation = Presentation(authorizationURL: authorizationURL, redirectURI: redirectURI)
        let next = state.withLock { state -> Action? in
            state.script.isEmpty ? nil : state.script.removeFirst()
        }
        guard var action = next else {
            let ready = state.withLock { $0.record(presentation) }
            ready.forEach { $0.resume() }
            throw MSALFailure(
                .internal, internalCode: .internalErrorUnexpected,
                message: "MSALScriptedWebUI: the script has no action left for \(authorizationURL.absoluteString)")
        }
        if action == .wait {
            action = try await waitForResume(presentation)
        } else {
            let ready = state.withLock { $0.record(presentation) }
            ready.forEach { $0.resume() }
        }
        while true {
            switch action {
            case .wait:
                action = try await waitForResume(nil)
                continue
            case .redirect(let parameters, let inFragment):
                return try Self.redirectURL(redirectURI, parameters + Self.stateItem(presentation), inFragment: inFragment)
            case .redirectWithState(let value, let parameters):
                return try Self.redirectURL(redirectURI, parameters + [URLQueryItem(name: "state", value: value)], inFragment: false)
            case .redirectURL(let url):
                return url
            case .error(let error, let description, let subError):
                var items = [URLQueryItem(name: "error", value: error)]
                if let description { items.append(URLQueryItem(name: "error_description", value: description)) }
                if let subError { items.append(URLQueryItem(name: "error_subcode", value: subError)) }
                return try Self.redirectURL(redirectURI, items + Self.stateItem(presentation), inFragment: false)
            case .cancel:
                throw MSALFailure(
                    .userCanceled, internalCode: .internalErrorSessionCanceled, message: "The user closed the sign-in page (scripted)")
            case .launchFailure:
                throw MSALFailure(.internal, internalCode: .browserLaunchFailed, message: "No browser could be started (scripted)")
            case .handOff(let deliveries):
                let requests = try deliveries.map { try Self.deliveryURL($0, redirectURI: redirectURI, presentation: presentation) }
                let task = Task { await Self.send(requests) }
                state.withLock { $0.deliveries.append(task) }
                return nil
            }
        }
    }

    // MARK: Internals

    /// Waits for ``resume(with:)``; records `presentation` (when given) once the wait is registered.
    private func waitForResume(_ presentation: Presentation?) async throws -> Action {
        let id = state.withLock { $0.makeID() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Action, any Error>) in
                let (ready, canceled) = state.withLock { state -> ([CheckedContinuation<Void, any Error>], Bool) in
                    let ready = presentation.map { state.record($0) } ?? []
                    if state.canceledWaits.remove(id) != nil { return (ready, true) }
                    state.waiting.append((id, continuation))
                    return (ready, false)
                }
                ready.forEach { $0.resume() }
                if canceled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Action, any Error>? in
                if let index = state.waiting.firstIndex(where: { $0.id == id }) {
                    return state.waiting.remove(at: index).continuation
                }
                state.canceledWaits.insert(id)
                return nil
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    private static func stateItem(_ presentation: Presentation) -> [URLQueryItem] {
        presentation.parameter("state").map { [URLQueryItem(name: "state", value: $0)] } ?? []
    }

    private static func encoded(_ items: [URLQueryItem]) -> String {
        MSALFormEncoding.encode(items.map { ($0.name, $0.value ?? "") })
    }

    private static func redirectURL(_ redirectURI: URL, _ items: [URLQueryItem], inFragment: Bool) throws -> URL {
        var text = redirectURI.absoluteString
        if let hash = text.firstIndex(of: "#") { text = String(text[..<hash]) }
        let query = encoded(items)
        if inFragment {
            text += "#" + query
        } else {
            text += (text.contains("?") ? "&" : "?") + query
        }
        guard let url = URL(string: text) else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorUnexpected,
                message: "MSALScriptedWebUI: cannot build a redirect URL from \(redirectURI)")
        }
        return url
    }

    /// The URL a delivery requests: always `127.0.0.1` on the redirect URI's port.
    private static func deliveryURL(_ delivery: Delivery, redirectURI: URL, presentation: Presentation) throws -> URL {
        guard let port = redirectURI.port, redirectURI.scheme?.lowercased() == "http" else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorUnexpected,
                message: "MSALScriptedWebUI: a hand-off needs a loopback http redirect URI with a port, not \(redirectURI.absoluteString)")
        }
        var items = delivery.parameters
        switch delivery.state {
        case .request: items += stateItem(presentation)
        case .value(let value): items.append(URLQueryItem(name: "state", value: value))
        case .omitted: break
        }
        let path = delivery.path ?? (redirectURI.path.isEmpty ? "/" : redirectURI.path)
        let query = encoded(items)
        guard let url = URL(string: "http://127.0.0.1:\(port)\(path)" + (query.isEmpty ? "" : "?" + query)) else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorUnexpected,
                message: "MSALScriptedWebUI: cannot build a delivery URL for path \(path)")
        }
        return url
    }
}
