import Foundation
import MSALDBus
import MSALJOSE
import MSALJSON

extension MSALEmulator.Broker {
    /// The `status` numbers of the broker's error answers the double uses, as Microsoft's runtime
    /// reads them (`docs/broker.md` has the whole table, found by answering each number).
    enum Status {
        static let unexpected = 0
        static let interactionRequired = 2
        static let apiContractViolation = 6
        static let userCanceled = 7
        static let incorrectConfiguration = 9
        static let transientError = 15
    }

    /// What the broker answers to `call`.
    func answer(_ call: DBusService.Call) async -> DBusService.Answer {
        let method =
            call.interface == Self.interface && call.path == Self.objectPath ? call.member.flatMap(Method.init(rawValue:)) : nil
        let arguments = call.arguments?.count == 3 ? call.arguments : nil
        let recorded = Call(method: method, protocolVersion: arguments?[0], correlationID: arguments?[1], request: arguments?[2])
        let fault = state.withLock { state -> Fault? in
            state.calls.append(recorded)
            guard method != nil, let index = state.faults.firstIndex(where: { $0.method == nil || $0.method == method }) else {
                return nil
            }
            state.faults[index].remaining -= 1
            let fault = state.faults[index].fault
            if state.faults[index].remaining == 0 { state.faults.remove(at: index) }
            return fault
        }
        guard let method else {
            return .error(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "The broker has no such method or object")
        }
        guard let arguments else {
            return .error(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "The broker's methods take three strings")
        }
        if let fault { return Self.answer(fault) }
        guard let document = try? JSONDocument(parsing: Array(arguments[2].utf8), limits: .document), document.root.kind == .object
        else {
            return Self.error(Status.apiContractViolation, "The request is not a JSON object")
        }
        let request = document.root
        switch method {
        case .getLinuxBrokerVersion:
            return Self.json(.object([JSONMember(name: "linuxBrokerVersion", value: .string(version))]))
        case .getAccounts:
            let users = accounts.compactMap { username in core.configuration.users.first { $0.username == username } }
            return Self.json(
                .object([
                    JSONMember(
                        name: "accounts", value: .array(users.map { accountJSON($0, tenantID: $0.tenantID, environment: Self.cloud) }))
                ]))
        case .acquireTokenSilently, .acquireTokenInteractively:
            return tokenAnswer(request["authParameters"], interactive: method == .acquireTokenInteractively)
        case .removeAccount:
            if let user = accountUser(request["account"]) {
                state.withLock { $0.accounts.removeAll { $0 == user.username } }
                dropPrimaryRefreshToken(of: user)
            }
            return Self.json(.object([]))
        case .cancelInteractiveFlow:
            return Self.json(.object([]))
        case .acquirePrtSsoCookie:
            return prtSsoCookieAnswer(request)
        case .generateSignedHttpRequest:
            return signedHTTPRequestAnswer(request)
        }
    }

    /// The host the double's accounts name (`environment`): Microsoft's public cloud, as the runtime expects.
    static let cloud = "login.microsoftonline.com"

    /// The user an account object (`homeAccountId` `uid.utid`, else `username`) names, if the emulator has one.
    func accountUser(_ account: JSONValue?) -> MSALEmulator.User? {
        guard let account, account.kind == .object else { return nil }
        let users = core.configuration.users
        if let home = account["homeAccountId"]?.string, let uid = home.split(separator: ".").first,
            let user = users.first(where: { $0.objectID == uid })
        {
            return user
        }
        if let username = account["username"]?.string, !username.isEmpty {
            return users.first { $0.username.lowercased() == username.lowercased() }
        }
        return nil
    }

    /// The answer to a token request's `authParameters`.
    private func tokenAnswer(_ parameters: JSONValue?, interactive: Bool) -> DBusService.Answer {
        guard let parameters, parameters.kind == .object, let clientID = parameters["clientId"]?.string, !clientID.isEmpty else {
            return Self.error(Status.apiContractViolation, "authParameters with a clientId are required")
        }
        guard let client = core.configuration.client(withID: clientID) else {
            return Self.error(
                Status.incorrectConfiguration,
                "AADSTS700016: Application with identifier '\(EmulatorText.sanitized(clientID, limit: 64))' was not found")
        }
        guard let authority = parameters["authority"]?.string.flatMap(URL.init(string:)),
            let segment = authority.path.split(separator: "/").first, let selector = core.tenantSelector(segment)
        else {
            return Self.error(Status.incorrectConfiguration, "The authority names no tenant the broker knows")
        }
        let scopes = parameters["requestedScopes"].map { $0.elements.compactMap(\.string) } ?? []
        let hinted = parameters["username"]?.string.flatMap { hint in
            core.configuration.users.first { $0.username.lowercased() == hint.lowercased() }
        }
        let user: MSALEmulator.User
        if interactive {
            let chosen = interactiveUser.flatMap { name in core.configuration.users.first { $0.username.lowercased() == name.lowercased() }
            }
            guard let signingIn = chosen ?? hinted ?? accountUser(parameters["account"]) ?? core.users(signingInThrough: selector).first
            else {
                return Self.error(Status.userCanceled, "Nobody signed in to the broker's window")
            }
            user = signingIn
        } else {
            // Without an account or a hint, the device's first account (the one the broker holds
            // the device's primary refresh token for), as a silent sign-in on a managed machine.
            let onDevice = accounts
            let named = accountUser(parameters["account"]) ?? hinted
            let nothingNamed = named == nil && (parameters["username"]?.string ?? "").isEmpty
            let firstOnDevice = nothingNamed ? onDevice.first.flatMap { core.configuration.user(named: $0) } : nil
            guard let known = named ?? firstOnDevice, onDevice.contains(known.username) else {
                return Self.error(Status.interactionRequired, "No account of this device matches the request: the user must sign in")
            }
            // Silent tokens come from the device's primary refresh token: revoked or expired, the
            // user must sign in again (as the provider would refuse the broker's refresh).
            if let refusal = primaryRefreshTokenRefusal(of: known) { return Self.error(Status.interactionRequired, refusal) }
            user = known
        }
        guard let tenantID = core.signInTenant(of: user, through: selector) else {
            return Self.error(Status.interactionRequired, "The account has no profile in the authority's tenant")
        }
        var proof: (method: String, host: String, path: String, nonce: String)?
        if let pop = parameters["popParams"], pop.kind == .object {
            proof = (
                pop["httpMethod"]?.string ?? "GET", pop["uriHost"]?.string ?? "", pop["uriPath"]?.string ?? "",
                pop["nonce"]?.string ?? UUID().uuidString
            )
        }
        do throws(EmulatorOAuthError) {
            let response = try tokenResponse(user: user, tenantID: tenantID, client: client, scopes: scopes, proof: proof)
            // The user is signed in on the device only once the sign-in gave tokens.
            if interactive {
                state.withLock { state in
                    if !state.accounts.contains(user.username) { state.accounts.append(user.username) }
                }
                mintPrimaryRefreshToken(for: user)
            }
            return Self.json(response)
        } catch {
            // A request the provider would refuse as such (a bad scope) is the app's configuration;
            // anything else asks for the user.
            let status =
                error.error == "invalid_scope" || error.error == "invalid_request"
                ? Status.incorrectConfiguration : Status.interactionRequired
            return Self.error(status, "\(error.error): \(error.description)")
        }
    }

    /// The `brokerTokenResponse` for `user`: tokens the emulator issues (as its token endpoint
    /// would), the access token presented as a signed HTTP request of the broker's key for PoP.
    private func tokenResponse(
        user: MSALEmulator.User, tenantID: String, client: MSALEmulator.Client, scopes: [String],
        proof: (method: String, host: String, path: String, nonce: String)?
    ) throws(EmulatorOAuthError) -> JSON {
        // No offline_access: the broker gives apps no refresh token (its own is the device's PRT),
        // so the emulator mints none for these answers.
        let scope = try EmulatorScope.parse((scopes + ["openid", "profile"]).joined(separator: " "))
        var issue = TokenIssue(
            user: user, tenantID: tenantID, client: client, scope: scope, nonce: nil, includesClientInfo: true,
            lineage: EmulatorCore.randomToken())
        if proof != nil { issue.proofKeyID = proofKey.thumbprint }
        let now = core.now()
        let issued = try core.issueTokens(issue, now: now)
        guard let document = try? JSONDocument(parsing: issued.body, limits: .document),
            let accessToken = document.root["access_token"]?.string, let idToken = document.root["id_token"]?.string,
            let clientInfo = document.root["client_info"]?.string, let expiresIn = document.root["expires_in"]?.int64
        else {
            throw EmulatorOAuthError(status: 500, "server_error", 90033, "The emulator's token answer lacks a member the broker needs.")
        }
        let extendedExpiresIn = document.root["ext_expires_in"]?.int64 ?? expiresIn
        var presented = accessToken
        if let proof {
            do throws(JOSEError) {
                presented = try proofKey.signedHTTPRequest(
                    accessToken: accessToken, method: proof.method, host: proof.host, path: proof.path, nonce: proof.nonce, now: now)
            } catch {
                throw EmulatorOAuthError(status: 500, "server_error", 90033, "The broker could not sign the request: \(error.message)")
            }
        }
        let milliseconds = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        let response = JSON.object([
            JSONMember(name: "accessToken", value: .string(presented)),
            JSONMember(name: "accessTokenType", value: .integer(proof == nil ? 0 : 1)),
            JSONMember(name: "account", value: accountJSON(user, tenantID: tenantID, environment: Self.cloud)),
            JSONMember(name: "clientInfo", value: .string(clientInfo)),
            JSONMember(name: "expiresOn", value: .integer(milliseconds + expiresIn * 1000)),
            JSONMember(name: "extendedExpiresOn", value: .integer(milliseconds + extendedExpiresIn * 1000)),
            JSONMember(name: "grantedScopes", value: .string(scope.granted + " offline_access")),
            JSONMember(name: "idToken", value: .string(idToken)),
        ])
        return .object([JSONMember(name: "brokerTokenResponse", value: response)])
    }

    /// The broker's account object for `user` in `tenantID`.
    func accountJSON(_ user: MSALEmulator.User, tenantID: String, environment: String) -> JSON {
        let clientInfo = Base64URL.encode(
            JSONWriter.write(
                .object([JSONMember(name: "uid", value: .string(user.objectID)), JSONMember(name: "utid", value: .string(user.tenantID))])))
        return .object([
            JSONMember(name: "clientInfo", value: .string(clientInfo)),
            JSONMember(name: "environment", value: .string(environment)),
            JSONMember(name: "givenName", value: .string(String(user.name.split(separator: " ").first ?? ""))),
            JSONMember(name: "homeAccountId", value: .string("\(user.objectID).\(user.tenantID)")),
            JSONMember(name: "localAccountId", value: .string(user.objectID(inTenant: tenantID) ?? user.objectID)),
            JSONMember(name: "name", value: .string(user.name)),
            JSONMember(name: "passwordExpiry", value: .integer(0)),
            JSONMember(name: "realm", value: .string(tenantID)),
            JSONMember(name: "username", value: .string(user.username)),
        ])
    }

    /// The answer for an injected fault.
    static func answer(_ fault: Fault) -> DBusService.Answer {
        switch fault {
        case .busy: error(Status.transientError, "The broker is busy; try again")
        case .userCanceled: error(Status.userCanceled, "The user closed the broker's window")
        case .interactionRequired: error(Status.interactionRequired, "The broker needs the user to sign in")
        case .error(let status, let context): error(status, context)
        case .neverAnswers: .none
        case .malformedAnswer: .strings(["{\"brokerTokenResponse\": "])
        case .dbusError(let name): .error(name: name, message: "Injected by the broker double")
        }
    }

    /// An error answer in the runtime's shape: `{"error": {"context", "errorCode", "status", "tag"}}`.
    static func error(_ status: Int, _ context: String) -> DBusService.Answer {
        json(
            .object([
                JSONMember(
                    name: "error",
                    value: .object([
                        JSONMember(name: "context", value: .string(context)), JSONMember(name: "errorCode", value: .integer(0)),
                        JSONMember(name: "status", value: .integer(Int64(status))), JSONMember(name: "tag", value: .integer(0)),
                    ]))
            ]))
    }

    static func json(_ value: JSON) -> DBusService.Answer {
        .strings([String(decoding: JSONWriter.write(value), as: UTF8.self)])
    }
}
