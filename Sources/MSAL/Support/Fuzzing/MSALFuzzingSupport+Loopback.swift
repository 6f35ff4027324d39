// Compiled only with the package trait TestEntryPoints, which FuzzTesting enables (see Package.swift).
#if MSAL_TEST_ENTRY_POINTS
import Foundation
import NIOCore

@_spi(Fuzzing) extension MSALFuzzingSupport {
    /// What a loopback listener settled on.
    public enum LoopbackOutcome: Sendable {
        /// The redirect with the expected `state`: its decoded parameters and URL.
        case redirect(parameters: [String: String], url: URL)
        /// The sign-in failed (a redirect with the expected `state` but neither code nor error).
        case failure(MSALFailure)
    }

    /// The request handling of one loopback listener without its sockets: the handlers of each
    /// accepted connection, exactly as `LoopbackRedirectListener` installs them, for an
    /// `EmbeddedChannel` to feed with raw request bytes.
    public final class LoopbackExchange: Sendable {
        let core: LoopbackListenerCore

        init(core: LoopbackListenerCore) {
            self.core = core
        }

        /// The handlers for one new connection, in pipeline order.
        public func connectionHandlers() -> [any ChannelHandler] {
            LoopbackRedirectListener.connectionHandlers(core: core)
        }

        /// The outcome, once a request settled it.
        public var outcome: LoopbackOutcome? {
            switch core.settledOutcome {
            case nil: nil
            case .success(let redirect): .redirect(parameters: redirect.parameters, url: redirect.url)
            case .failure(let error): .failure(error)
            }
        }
    }

    /// A listener's request handling for `redirectURI` bound on `port`, waiting for `expectedState`,
    /// with its timers on `eventLoop`.
    ///
    /// - Throws: ``MSALFailure`` (``MSALInternalError/internalErrorInvalidRedirectURI``) for a bad redirect URI.
    public static func loopbackExchange(
        redirectURI: String?, port: Int, expectedState: String, maximumRequestBytes: Int, eventLoop: any EventLoop
    ) throws(MSALFailure) -> LoopbackExchange {
        let redirect = try LoopbackRedirectURI(parsing: redirectURI)
        let core = LoopbackListenerCore(
            maximumRequestBytes: maximumRequestBytes, connectionTimeout: .seconds(10),
            maximumConnections: LoopbackRedirectListener.maximumConnections,
            pages: LoopbackPages(successHTML: nil, failureTemplate: nil))
        let timer = eventLoop.scheduleTask(in: .hours(24)) {}
        core.activate(
            rules: LoopbackRequestRules(redirectURI: redirect, port: port, expectedState: expectedState), servers: [], timer: timer)
        return LoopbackExchange(core: core)
    }

    /// Checks a redirect URL an app's own web UI captured (`LoopbackRedirect.parse`); returns its parameters.
    ///
    /// - Throws: ``MSALFailure`` (`invalidRedirect`, `invalidState`).
    public static func parseCapturedRedirect(_ url: URL, expectedState: String) throws(MSALFailure) -> [String: String] {
        try LoopbackRedirect.parse(
            url, expectedState: expectedState, correlationID: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))
        ).parameters
    }

    /// Parses an app's loopback redirect URI (`LoopbackRedirectURI`); returns its parts and the URI
    /// the listener sends once bound to `boundPort`.
    ///
    /// - Throws: ``MSALFailure`` (``MSALInternalError/internalErrorInvalidRedirectURI``).
    public static func parseLoopbackRedirectURI(
        _ text: String, boundPort: Int
    ) throws(MSALFailure) -> (host: String, port: Int?, path: String, url: URL) {
        let parsed = try LoopbackRedirectURI(parsing: text)
        return (parsed.host.rawValue, parsed.port, parsed.path, parsed.url(boundPort: parsed.port ?? boundPort))
    }
}
#endif
