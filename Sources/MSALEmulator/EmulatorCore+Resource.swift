import Foundation
import MSALJOSE
import MSALJSON

extension EmulatorCore {
    /// `GET /resource/me`: the user of a valid access token, as JSON.
    func resource(_ request: EmulatorHTTPRequest, info: inout EmulatorRequestInfo) async -> EmulatorHTTPResponse {
        let challenge = "Bearer realm=\"\", authorization_uri=\"\(origin)/common/oauth2/v2.0/authorize\""
        func unauthorized(_ description: String?) -> EmulatorHTTPResponse {
            var value = challenge
            var body: [JSONMember] = [JSONMember(name: "error", value: .string(description == nil ? "unauthorized" : "invalid_token"))]
            if let description {
                value += ", error=\"invalid_token\", error_description=\"\(description)\""
                body.append(JSONMember(name: "error_description", value: .string(description)))
            }
            var response = EmulatorHTTPResponse.json(.object(body), status: 401, headers: [("WWW-Authenticate", value)])
            response.oauthError = description == nil ? nil : "invalid_token"
            return response
        }
        guard let header = request.header("authorization") else { return unauthorized(nil) }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            return unauthorized("The Authorization header is not a Bearer token.")
        }
        let token = String(parts[1]).trimmingCharacters(in: .whitespaces)
        let jwt: JWT
        do {
            jwt = try JWTVerifier(keySet: keySet, allowedAlgorithms: [.rs256], maximumTokenSize: 16 * 1024).verify(token)
        } catch {
            return unauthorized("The token's signature is invalid or it was not issued by this emulator.")
        }
        guard let tenantID = jwt.stringClaim("tid"), tenantSelector(Substring(tenantID)) != nil,
            !EmulatorText.reservedTenants.contains(tenantID),
            jwt.stringClaim("iss") == issuer(tenantID: tenantID)
        else { return unauthorized("The token's issuer is not one of the emulator's tenants.") }
        guard jwt.stringListClaim("aud") == [configuration.resourceAudience] else {
            return unauthorized("The token's audience is not \(configuration.resourceAudience).")
        }
        let now = self.now().timeIntervalSince1970
        guard let expiry = jwt.numberClaim("exp"), expiry > now else { return unauthorized("The token is expired.") }
        if let notBefore = jwt.numberClaim("nbf"), notBefore > now + 300 { return unauthorized("The token is not valid yet.") }
        let username = jwt.stringClaim("preferred_username") ?? ""
        if let tokenID = jwt.stringClaim("uti"), state.withLock({ $0.revokedAccessTokens.contains(tokenID) }) {
            return unauthorized("The token was revoked.")
        }
        info.clientID = jwt.stringClaim("azp")
        info.username = username
        if let fault = await faultAnswer(&info, clientID: info.clientID, username: username) {
            return errorResponse(fault, info: info)
        }
        return .json(
            .object([
                "id": .string(jwt.stringClaim("oid") ?? ""),
                "displayName": .string(jwt.stringClaim("name") ?? ""),
                "userPrincipalName": .string(username),
                "mail": .string(username),
                "tenantId": .string(tenantID),
                "clientId": .string(jwt.stringClaim("azp") ?? ""),
                "scopes": .array((jwt.stringClaim("scp") ?? "").split(separator: " ").map { .string(String($0)) }),
            ]))
    }
}
