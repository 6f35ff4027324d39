/// The emulator's HTML pages: small, self-contained, every value escaped.
///
/// The sign-in form is meant to be read by programs too: it has `id="signin"`, posts to the
/// authorize endpoint, carries the request's parameters as hidden inputs, and offers one submit
/// button per user (`name="emulator_user"`, `value` = the username) plus a cancel button
/// (`name="emulator_action"`, `value="cancel"`).
enum EmulatorPages {
    private static let style = """
        body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}
        h1{font-size:1.4rem}button{display:block;width:100%;margin:.4rem 0;padding:.6rem;font-size:1rem;text-align:left;cursor:pointer}
        .muted{color:#555;font-size:.9rem}code{background:#f2f2f2;padding:0 .2rem}
        """

    /// A complete page.
    static func page(title: String, body: String, script: String? = nil) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(EmulatorText.html(title))</title><style>\(style)</style></head>
        <body>\(body)\(script.map { "<script>\($0)</script>" } ?? "")</body></html>
        """
    }

    /// Hidden inputs for `parameters`.
    static func hiddenInputs(_ parameters: [(name: String, value: String)]) -> String {
        parameters.map { "<input type=\"hidden\" name=\"\(EmulatorText.html($0.name))\" value=\"\(EmulatorText.html($0.value))\">" }
            .joined(separator: "\n")
    }

    /// The sign-in page: one button per user, and cancel.
    static func signIn(
        action: String, parameters: [(name: String, value: String)], clientName: String, tenantName: String, users: [MSALEmulator.User]
    ) -> String {
        let buttons = users.map { user in
            "<button type=\"submit\" name=\"emulator_user\" value=\"\(EmulatorText.html(user.username))\">"
                + "\(EmulatorText.html(user.name)) <span class=\"muted\">\(EmulatorText.html(user.username))</span></button>"
        }.joined(separator: "\n")
        let empty = users.isEmpty ? "<p>No user can sign in to this tenant.</p>" : ""
        return page(
            title: "Sign in – MSAL Emulator",
            body: """
                <h1>Sign in to \(EmulatorText.html(clientName))</h1>
                <p class="muted">MSAL Emulator · \(EmulatorText.html(tenantName)) · pick an account</p>
                <form id="signin" method="post" action="\(EmulatorText.html(action))">
                \(hiddenInputs(parameters))
                \(buttons)\(empty)
                <button type="submit" name="emulator_action" value="cancel">Cancel</button>
                </form>
                """)
    }

    /// The page for a user chosen in advance: it submits itself, or the user presses the button.
    static func autoSignIn(
        action: String, parameters: [(name: String, value: String)], clientName: String, user: MSALEmulator.User
    ) -> String {
        page(
            title: "Signing in – MSAL Emulator",
            body: """
                <h1>Signing in to \(EmulatorText.html(clientName))</h1>
                <form id="signin" method="post" action="\(EmulatorText.html(action))">
                \(hiddenInputs(parameters))
                <button type="submit" name="emulator_user" value="\(EmulatorText.html(user.username))">Continue as \(EmulatorText.html(user.name)) <span class="muted">\(EmulatorText.html(user.username))</span></button>
                </form>
                """,
            script: """
                (function(){var f=document.getElementById('signin');var b=f.querySelector('button[name=emulator_user]');\
                var i=document.createElement('input');i.type='hidden';i.name=b.name;i.value=b.value;f.appendChild(i);f.submit();})();
                """)
    }

    /// An error shown instead of redirecting (bad client, redirect URI or tenant).
    static func error(_ error: EmulatorOAuthError, traceID: String, correlationID: String) -> String {
        page(
            title: "Sign-in error – MSAL Emulator",
            body: """
                <h1>Sorry, but we’re having trouble signing you in.</h1>
                <p><code>\(EmulatorText.html(error.error))</code> AADSTS\(error.code): \(EmulatorText.html(error.description))</p>
                <p class="muted">Trace ID: \(EmulatorText.html(traceID))<br>Correlation ID: \(EmulatorText.html(correlationID))</p>
                """)
    }

    /// A short message page.
    static func message(title: String, _ text: String) -> String {
        page(title: "\(title) – MSAL Emulator", body: "<h1>\(EmulatorText.html(title))</h1><p>\(EmulatorText.html(text))</p>")
    }

    /// The device login page: enter the code, pick a user, approve or decline.
    static func deviceLogin(userCode: String, users: [MSALEmulator.User], notice: String?) -> String {
        let choices = users.enumerated().map { index, user in
            "<label><input type=\"radio\" name=\"emulator_user\" value=\"\(EmulatorText.html(user.username))\"\(index == 0 ? " checked" : "")> "
                + "\(EmulatorText.html(user.name)) <span class=\"muted\">\(EmulatorText.html(user.username))</span></label><br>"
        }.joined(separator: "\n")
        return page(
            title: "Enter code – MSAL Emulator",
            body: """
                <h1>Enter code</h1>
                \(notice.map { "<p>\(EmulatorText.html($0))</p>" } ?? "")
                <form id="devicelogin" method="post" action="/devicelogin">
                <p><input name="user_code" value="\(EmulatorText.html(userCode))" autocomplete="off" placeholder="Code"></p>
                <p>\(choices)</p>
                <button type="submit" name="emulator_action" value="approve">Sign in</button>
                <button type="submit" name="emulator_action" value="decline">Decline</button>
                </form>
                """)
    }
}
