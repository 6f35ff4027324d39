import Foundation

extension EmulatorCore {
    /// `GET`/`POST /{tenant}/oauth2/v2.0/logout`: ends the browser session, then redirects to a
    /// registered `post_logout_redirect_uri` of `client_id` or shows a page.
    func logout(_ request: EmulatorHTTPRequest, selector: TenantSelector?, info: inout EmulatorRequestInfo) async -> EmulatorHTTPResponse {
        if let fault = await faultAnswer(&info) {
            return .html(EmulatorPages.message(title: "Error", "AADSTS\(fault.code): \(fault.description)"), status: fault.status)
        }
        let parameters = (request.method == "POST" && request.isForm ? request.form : request.query) ?? EmulatorParameters()
        info.clientID = parameters["client_id"].map { EmulatorText.sanitized($0, limit: 128) }
        if let session = request.cookie(Self.sessionCookie) {
            if let userID = state.withLock({ $0.sessions.removeValue(forKey: session) }) {
                info.username = user(homeObjectID: userID)?.username
            }
        }
        let expired = ("Set-Cookie", "\(Self.sessionCookie)=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax")
        if let target = parameters.nonEmpty("post_logout_redirect_uri"), let clientID = parameters["client_id"],
            let client = configuration.client(withID: clientID), RedirectURIMatcher.matches(target, registered: client.redirectURIs)
        {
            let state = parameters["state"].map { [("state", $0)] } ?? []
            return .redirect(state.isEmpty ? target : RedirectURIMatcher.appending(state, to: target), headers: [expired])
        }
        return .html(
            EmulatorPages.message(
                title: "You signed out", "You signed out of your account. It’s a good idea to close all browser windows."),
            headers: [expired])
    }

    /// `GET /`: what the emulator hosts.
    func homePage() -> EmulatorHTTPResponse {
        let tenants = configuration.tenants.map { tenant in
            "<li>\(EmulatorText.html(tenant.displayName)): <code>\(EmulatorText.html(origin))/\(EmulatorText.html(tenant.id))</code>"
                + (tenant.domain.map { " or <code>\(EmulatorText.html(origin))/\(EmulatorText.html($0))</code>" } ?? "") + "</li>"
        }.joined()
        let users = configuration.users.map { "<li>\(EmulatorText.html($0.name)) <code>\(EmulatorText.html($0.username))</code></li>" }
            .joined()
        let clients = configuration.clients.map {
            "<li>\(EmulatorText.html($0.displayName)) <code>\(EmulatorText.html($0.clientID))</code>\($0.isFamilyMember ? " (family)" : "")</li>"
        }.joined()
        return .html(
            EmulatorPages.page(
                title: "MSAL Emulator",
                body: """
                    <h1>MSAL Emulator</h1>
                    <p>A local identity provider speaking the Microsoft identity platform v2.0 protocol.
                    Multi-tenant authority: <code>\(EmulatorText.html(origin))/common</code></p>
                    <h2>Tenants</h2><ul>\(tenants)</ul><h2>Users</h2><ul>\(users)</ul><h2>Clients</h2><ul>\(clients)</ul>
                    <p><a href="/devicelogin">Enter a device code</a></p>
                    """))
    }
}
