import Foundation

extension MSALFailure {
    /// No redirect arrived at `redirectURI` within `timeout` seconds.
    package static func redirectTimeout(redirectURI: URL, timeout: TimeInterval) -> MSALFailure {
        MSALFailure(
            .internal, internalCode: .redirectTimeout,
            message: "No redirect arrived at \(redirectURI.absoluteString) within \(Self.seconds(timeout)); the listener was closed.")
    }

    /// The interactive request was canceled (its task, or the listener was closed) before the redirect arrived.
    package static func loopbackCanceled() -> MSALFailure {
        MSALFailure(
            .userCanceled, internalCode: .internalErrorSessionCanceled,
            message: "The interactive request was canceled before the redirect arrived.")
    }

    /// The listener could not bind or serve.
    package static func loopbackListenerFailed(_ reason: String, underlying: (any Error & Sendable)? = nil) -> MSALFailure {
        MSALFailure(
            .internal, internalCode: .loopbackListenerFailed,
            message: "The loopback redirect listener failed: \(reason).", underlyingError: underlying)
    }

    /// A redirect with the expected `state` that cannot be used.
    package static func invalidRedirect(_ reason: String) -> MSALFailure {
        MSALFailure(.internal, internalCode: .invalidRedirect, message: "Invalid redirect: \(reason)")
    }

    /// The single-use start URL was requested again.
    package static func startURLReused() -> MSALFailure {
        MSALFailure(
            .internal, internalCode: .startURLReused,
            message: "The sign-in's single-use start URL was requested a second time: another program on this machine may have read it "
                + "(a browser's command line is visible to every local user) and tried to sign in with it. The sign-in was stopped "
                + "and nothing was redeemed; start it again.")
    }

    private static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
