extension MSALPublicClientApplication {
    /// Ends the interactive sign-in that is waiting for the user, as MSAL for iOS's
    /// `cancelCurrentWebAuthSession()`: its `acquireToken` fails with ``MSALError/userCanceled``
    /// and ``MSALInternalError/internalErrorSessionCanceled``, and its loopback listener closes.
    ///
    /// It ends every such sign-in of the process, whichever application started it (MSAL for iOS
    /// has one on screen at a time). A browser tab already open stays open: swift-msal cannot close
    /// it, but the page it redirects to is no longer served.
    ///
    /// - Returns: `true` when a sign-in was waiting, `false` otherwise.
    @discardableResult
    public static func cancelCurrentWebAuthSession() -> Bool {
        WebAuthSessions.shared.cancelAll()
    }
}
