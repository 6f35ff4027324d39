import Foundation
import MSALDBus
import MSALJOSE
import MSALJSON

// The broker double's device state: the primary refresh token (PRT) it keeps for each account
// signed in on the device, and the two methods that use it without an app's token request,
// `acquirePrtSsoCookie` and `generateSignedHttpRequest` (their shapes read from the open clients
// siemens/sso-mib and siemens/linux-entra-sso; Microsoft's runtime does not call them).
extension MSALEmulator.Broker {
    /// The client id the device's primary refresh tokens are issued to: Microsoft's broker app.
    static let brokerClientID = "29d9ed98-a469-4536-ade2-f981bc1d605e"
    /// The cookie a browser presents for single sign-on with the device's PRT.
    static let prtCookieName = "x-ms-RefreshTokenCredential"

    /// Issues a new primary refresh token for `user` (a refresh token of the emulator's, to the
    /// broker's own client, in the user's home tenant) and keeps it as the user's, revoking the one
    /// it replaces.
    func mintPrimaryRefreshToken(for user: MSALEmulator.User) {
        let token = EmulatorCore.randomToken()
        let now = core.now()
        let lifetime = core.state.withLock { $0.lifetimes.refreshToken }
        let grant = RefreshTokenGrant(
            clientID: Self.brokerClientID, isFamily: false, userID: user.objectID, tenantID: user.tenantID,
            expiresAt: now.addingTimeInterval(TimeInterval(lifetime)), lineage: EmulatorCore.randomToken())
        // The new grant exists before any request can name it; the one it replaces (whichever
        // concurrent sign-in lost the swap) is revoked after, so no good token is left unnamed.
        core.state.withLock { $0.refreshTokens[token] = grant }
        let replaced = state.withLock { state -> String? in
            defer { state.primaryRefreshTokens[user.username] = token }
            return state.primaryRefreshTokens[user.username]
        }
        if let replaced { core.state.withLock { $0.refreshTokens[replaced]?.status = .revoked } }
    }

    /// Forgets `user`'s primary refresh token and revokes it (a sign-out of the device).
    func dropPrimaryRefreshToken(of user: MSALEmulator.User) {
        guard let token = state.withLock({ $0.primaryRefreshTokens.removeValue(forKey: user.username) }) else { return }
        core.state.withLock { $0.refreshTokens[token]?.status = .revoked }
    }

    /// Why `user`'s primary refresh token cannot be used, in the words of Microsoft Entra's errors
    /// (none, revoked by an admin, expired), for an InteractionRequired answer; `nil` when it is good.
    func primaryRefreshTokenRefusal(of user: MSALEmulator.User) -> String? {
        guard let token = state.withLock({ $0.primaryRefreshTokens[user.username] }) else {
            return "The device holds no primary refresh token for the account: the user must sign in"
        }
        let now = core.now()
        guard let grant = core.state.withLock({ $0.refreshTokens[token] }) else {
            return "AADSTS9002313: The device's primary refresh token is unknown to the identity provider"
        }
        if grant.status == .revoked {
            return "AADSTS50173: The device's primary refresh token was revoked; the user must sign in again"
        }
        guard grant.expiresAt > now else {
            return "AADSTS700082: The device's primary refresh token has expired due to inactivity"
        }
        return nil
    }

    /// `acquirePrtSsoCookie`: `{"account", "authParameters", "ssoUrl"}` → a cookie carrying the
    /// account's PRT, signed with the broker's device key, in `cookieItems` (as brokers after 2.0.1
    /// answer, per sso-mib).
    func prtSsoCookieAnswer(_ request: JSONValue) -> DBusService.Answer {
        guard let ssoURL = request["ssoUrl"]?.string, let url = URL(string: ssoURL), url.scheme == "https" else {
            return Self.error(Status.apiContractViolation, "acquirePrtSsoCookie needs an https ssoUrl")
        }
        guard let user = accountUser(request["account"]), accounts.contains(user.username) else {
            return Self.error(Status.interactionRequired, "No account of this device matches the request: the user must sign in")
        }
        if let refusal = primaryRefreshTokenRefusal(of: user) { return Self.error(Status.interactionRequired, refusal) }
        guard let token = state.withLock({ $0.primaryRefreshTokens[user.username] }) else {
            return Self.error(Status.interactionRequired, "The device holds no primary refresh token for the account")
        }
        var claims: [JSONMember] = [
            JSONMember(name: "refresh_token", value: .string(token)),
            JSONMember(name: "is_primary", value: .string("true")),
            JSONMember(name: "iat", value: .integer(Int64(core.now().timeIntervalSince1970.rounded(.down)))),
        ]
        if let nonce = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "sso_nonce" })?
            .value
        {
            claims.append(JSONMember(name: "request_nonce", value: .string(nonce)))
        }
        let content: String
        do throws(JOSEError) {
            content = try proofKey.sign(claims: .object(claims), type: "JWT")
        } catch {
            return Self.error(Status.unexpected, "The broker could not sign the cookie: \(error.message)")
        }
        let item = JSON.object([
            JSONMember(name: "cookieName", value: .string(Self.prtCookieName)),
            JSONMember(name: "cookieContent", value: .string(content)),
        ])
        return Self.json(.object([JSONMember(name: "cookieItems", value: .array([item]))]))
    }

    /// `generateSignedHttpRequest`: `{"clientId", "popParams": {…, "homeAccountId"}}` → a signed
    /// HTTP request of the broker's device key for the resource request (`signedHttpRequest`),
    /// without an access token.
    func signedHTTPRequestAnswer(_ request: JSONValue) -> DBusService.Answer {
        guard let clientID = request["clientId"]?.string, core.configuration.client(withID: clientID) != nil else {
            return Self.error(Status.incorrectConfiguration, "generateSignedHttpRequest needs the clientId of a known application")
        }
        guard let pop = request["popParams"], pop.kind == .object, let host = pop["uriHost"]?.string, !host.isEmpty else {
            return Self.error(Status.apiContractViolation, "generateSignedHttpRequest needs popParams with a uriHost")
        }
        // `popParams` names the account by its `homeAccountId`, which is how `accountUser` reads an account.
        guard let user = accountUser(pop), accounts.contains(user.username) else {
            return Self.error(Status.interactionRequired, "No account of this device matches the request: the user must sign in")
        }
        if let refusal = primaryRefreshTokenRefusal(of: user) { return Self.error(Status.interactionRequired, refusal) }
        do throws(JOSEError) {
            let signed = try proofKey.signedHTTPRequest(
                accessToken: nil, method: pop["httpMethod"]?.string ?? "GET", host: host, path: pop["uriPath"]?.string ?? "",
                nonce: pop["nonce"]?.string ?? UUID().uuidString, now: core.now())
            return Self.json(.object([JSONMember(name: "signedHttpRequest", value: .string(signed))]))
        } catch {
            return Self.error(Status.unexpected, "The broker could not sign the request: \(error.message)")
        }
    }
}
