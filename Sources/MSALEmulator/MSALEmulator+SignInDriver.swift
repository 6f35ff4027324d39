import Foundation

extension MSALEmulator {
    /// Completes the emulator's sign-in page over HTTP, as a browser would: loads the authorization
    /// URL, submits the sign-in form for a user, and returns where the emulator redirects — the
    /// app's redirect URI with `code` and `state`, or with `error`.
    ///
    /// Redirects are not followed, so nothing needs to listen at the redirect URI: an app's web UI
    /// (an `MSALWebUI` in swift-msal) can return the URL as the captured redirect.
    ///
    /// ```swift
    /// struct EmulatorWebUI: MSALWebUI {
    ///     func present(authorizationURL: URL, redirectURI: URL) async throws -> URL? {
    ///         try await MSALEmulator.SignInDriver(username: "adele@contoso.example").signIn(authorizationURL: authorizationURL)
    ///     }
    /// }
    /// ```
    public struct SignInDriver: Sendable {
        /// The user to sign in; `nil` takes the user the page signs in automatically, else the first one listed.
        public var username: String?
        /// Cookies sent with each request (`name=value; …`), such as a session from ``signIn(authorizationURL:)``.
        public var cookie: String?

        /// Creates a driver for `username`.
        public init(username: String? = nil, cookie: String? = nil) {
            self.username = username
            self.cookie = cookie
        }

        /// Signs in on the page at `authorizationURL` and returns the redirect's URL.
        ///
        /// A request the emulator answers with a redirect straight away (an error, or `prompt=none`)
        /// returns that redirect without a form.
        ///
        /// - Throws: ``MSALEmulatorError/Code/signInFailed`` when the page is an error page, has no
        ///   sign-in form, or does not list the user.
        public func signIn(authorizationURL: URL) async throws -> URL {
            try await submit(authorizationURL: authorizationURL, cancel: false).location
        }

        /// Like ``signIn(authorizationURL:)``, and also returns the session cookie the emulator set,
        /// for a later `prompt=none` request.
        public func signInKeepingSession(authorizationURL: URL) async throws -> (redirect: URL, cookie: String?) {
            let (location, cookie) = try await submit(authorizationURL: authorizationURL, cancel: false)
            return (location, cookie)
        }

        /// Presses the page's cancel button and returns the redirect's URL (with `error=access_denied`).
        public func cancel(authorizationURL: URL) async throws -> URL {
            try await submit(authorizationURL: authorizationURL, cancel: true).location
        }

        private func submit(authorizationURL: URL, cancel: Bool) async throws -> (location: URL, cookie: String?) {
            let client = EmulatorHTTPClient()
            let cookieHeader = cookie.map { [("Cookie", $0)] } ?? []
            let page = try await client.send("GET", authorizationURL, headers: cookieHeader)
            if page.status == 302, let location = page.header("location"), let url = URL(string: location) {
                return (url, nil)
            }
            guard page.status == 200 else {
                throw MSALEmulatorError(.signInFailed, "the authorization URL answered HTTP \(page.status): \(Self.summary(page.text))")
            }
            guard let form = SignInForm(html: page.text) else {
                throw MSALEmulatorError(.signInFailed, "the page has no sign-in form: \(Self.summary(page.text))")
            }
            var fields = form.hiddenFields
            if cancel {
                fields.append(("emulator_action", "cancel"))
            } else {
                let user: String
                if let username {
                    guard let listed = form.users.first(where: { $0.lowercased() == username.lowercased() }) else {
                        throw MSALEmulatorError(
                            .signInFailed, "the sign-in page does not list \(username); it lists \(form.users.joined(separator: ", "))")
                    }
                    user = listed
                } else {
                    guard let first = form.users.first else { throw MSALEmulatorError(.signInFailed, "the sign-in page lists no user") }
                    user = first
                }
                fields.append(("emulator_user", user))
            }
            guard let action = URL(string: form.action, relativeTo: authorizationURL)?.absoluteURL else {
                throw MSALEmulatorError(.signInFailed, "the form's action \(form.action) is not a URL")
            }
            let answer = try await client.send(
                "POST", action, headers: cookieHeader + [("Content-Type", "application/x-www-form-urlencoded")],
                body: Array(EmulatorText.formEncoded(fields).utf8))
            guard answer.status == 302, let location = answer.header("location"), let url = URL(string: location) else {
                throw MSALEmulatorError(
                    .signInFailed, "submitting the sign-in form answered HTTP \(answer.status): \(Self.summary(answer.text))")
            }
            let session = answer.headers.first { $0.name == "set-cookie" && $0.value.hasPrefix(EmulatorCore.sessionCookie + "=") }
                .map { String($0.value.prefix { $0 != ";" }) }
            return (url, session)
        }

        private static func summary(_ html: String) -> String {
            let text = html.replacingOccurrences(of: "<[^>]*>", with: " ", options: .regularExpression)
                .split(whereSeparator: \.isWhitespace).joined(separator: " ")
            return EmulatorText.sanitized(text, limit: 300)
        }
    }
}
