import Foundation
import MSALJOSE
import MSALJSON

extension EmulatorCore {
    /// The characters of user codes: upper-case letters and digits without look-alikes.
    private static let userCodeAlphabet = Array("BCDFGHJKLMNPQRSTVWXZ23456789")

    /// `POST /{tenant}/oauth2/v2.0/devicecode` (RFC 8628 §3.1).
    func deviceCode(
        _ request: EmulatorHTTPRequest, selector: TenantSelector?, segment: Substring, info: inout EmulatorRequestInfo
    ) async -> EmulatorHTTPResponse {
        guard let selector else { return errorResponse(.unknownTenant(String(segment)), info: info) }
        guard request.isForm, let form = request.form else { return errorResponse(.malformed, info: info) }
        if let duplicated = form.duplicatedName { return errorResponse(.duplicated(duplicated), info: info) }
        guard let clientID = form.nonEmpty("client_id") else { return errorResponse(.missing("client_id"), info: info) }
        info.clientID = EmulatorText.sanitized(clientID, limit: 128)
        guard configuration.client(withID: clientID) != nil else { return errorResponse(.unknownClient(clientID), info: info) }
        guard let scopeText = form.nonEmpty("scope") else { return errorResponse(.missing("scope"), info: info) }
        do {
            _ = try EmulatorScope.parse(scopeText)
        } catch {
            return errorResponse(error, info: info)
        }
        if let fault = await faultAnswer(&info, clientID: clientID) { return errorResponse(fault, info: info) }

        let now = self.now()
        let deviceCode = Self.randomToken()
        let (userCode, lifetimes) = state.withLock { state -> (String, MSALEmulator.Lifetimes) in
            state.prune(now: now)
            var userCode = Self.newUserCode()
            while state.userCodes[userCode] != nil { userCode = Self.newUserCode() }
            state.userCodes[userCode] = deviceCode
            state.deviceCodes[deviceCode] = DeviceCodeGrant(
                userCode: userCode, clientID: clientID, scope: scopeText, tenantSegment: selector.pathSegment,
                expiresAt: now.addingTimeInterval(TimeInterval(state.lifetimes.deviceCode)), interval: state.lifetimes.deviceCodeInterval)
            return (userCode, state.lifetimes)
        }
        let verification = "\(origin)/devicelogin"
        return .json(
            .object([
                "user_code": .string(userCode),
                "device_code": .string(deviceCode),
                "verification_uri": .string(verification),
                "expires_in": .integer(lifetimes.deviceCode),
                "interval": .integer(lifetimes.deviceCodeInterval),
                "message": .string(
                    "To sign in, use a web browser to open the page \(verification) and enter the code \(userCode) to authenticate."),
            ]))
    }

    private static func newUserCode() -> String {
        let bytes = (try? SecureRandom.bytes(count: 9)) ?? (0..<9).map { _ in UInt8.random(in: 0...255) }
        return String(bytes.map { userCodeAlphabet[Int($0) % userCodeAlphabet.count] })
    }

    /// A user code as typed: upper case, without spaces and hyphens.
    static func normalizedUserCode(_ text: String) -> String {
        String(text.uppercased().filter { $0 != " " && $0 != "-" })
    }

    /// Approves or declines the device code with `userCode`.
    ///
    /// - Throws: ``MSALEmulatorError/Code/unknownUserCode`` when no pending, unexpired code has it;
    ///   ``MSALEmulatorError/Code/unknownUser``; ``MSALEmulatorError/Code/userNotInTenant``.
    func decideDeviceCode(userCode: String, username: String?, approve: Bool) throws(MSALEmulatorError) {
        let now = self.now()
        let normalized = Self.normalizedUserCode(userCode)
        var user: MSALEmulator.User?
        if approve {
            guard let username, let found = configuration.user(named: username) else {
                throw MSALEmulatorError(.unknownUser, "no user is named \(EmulatorText.sanitized(username ?? "", limit: 128))")
            }
            user = found
        }
        let outcome: MSALEmulatorError? = state.withLock { state in
            guard let deviceCode = state.userCodes[normalized], var grant = state.deviceCodes[deviceCode], grant.expiresAt > now,
                case .pending = grant.status
            else {
                return MSALEmulatorError(
                    .unknownUserCode, "no device code waiting for approval has the user code \(EmulatorText.sanitized(userCode, limit: 32))"
                )
            }
            if let user {
                guard let selector = tenantSelector(Substring(grant.tenantSegment)),
                    let tenantID = signInTenant(of: user, through: selector)
                else {
                    return MSALEmulatorError(.userNotInTenant, "\(user.username) cannot sign in to tenant \(grant.tenantSegment)")
                }
                grant.status = .approved(userID: user.objectID, tenantID: tenantID)
            } else {
                grant.status = .declined
            }
            state.deviceCodes[deviceCode] = grant
            return nil
        }
        if let outcome { throw outcome }
    }

    /// `GET`/`POST /devicelogin`.
    func deviceLogin(_ request: EmulatorHTTPRequest, info: inout EmulatorRequestInfo) async -> EmulatorHTTPResponse {
        if let fault = await faultAnswer(&info) {
            return .html(EmulatorPages.message(title: "Error", "AADSTS\(fault.code): \(fault.description)"), status: fault.status)
        }
        if request.method == "GET" {
            let code = request.query?["user_code"] ?? ""
            return .html(
                EmulatorPages.deviceLogin(userCode: EmulatorText.sanitized(code, limit: 32), users: configuration.users, notice: nil))
        }
        guard request.isForm, let form = request.form else {
            return .html(EmulatorPages.message(title: "Bad request", "The form could not be read."), status: 400)
        }
        guard let userCode = form.nonEmpty("user_code") else {
            return .html(
                EmulatorPages.deviceLogin(userCode: "", users: configuration.users, notice: "Enter the code shown on your device."),
                status: 400)
        }
        let approve = form["emulator_action"] != "decline"
        let username = form.nonEmpty("emulator_user")
        info.username = username.flatMap { configuration.user(named: $0)?.username }
        do throws(MSALEmulatorError) {
            try decideDeviceCode(userCode: userCode, username: username, approve: approve)
        } catch {
            return .html(
                EmulatorPages.deviceLogin(
                    userCode: EmulatorText.sanitized(userCode, limit: 32), users: configuration.users, notice: error.message),
                status: 400)
        }
        return .html(
            approve
                ? EmulatorPages.message(
                    title: "You’re signed in", "You signed in on your device as \(info.username ?? ""). You can close this window.")
                : EmulatorPages.message(title: "Sign-in declined", "The device was not signed in. You can close this window."))
    }
}
