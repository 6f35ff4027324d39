import Foundation
import MSALJOSE
import MSALJSON

/// What a successful grant issues tokens for.
struct TokenIssue: Sendable {
    var user: MSALEmulator.User
    /// The tenant of the tokens (the home tenant or a guest tenant).
    var tenantID: String
    var client: MSALEmulator.Client
    var scope: EmulatorScope
    var nonce: String?
    var includesClientInfo: Bool
    /// The lineage of the refresh token to issue (shared with the code or token it descends from).
    var lineage: String
    /// The key a proof-of-possession token is bound to (`req_cnf`'s `kid`, with `token_type=pop`):
    /// the access token names it in `cnf`, and the answer's `token_type` is `pop`. `nil`: a bearer token.
    var proofKeyID: String? = nil
    /// The RFC 7638 thumbprint of the DPoP key whose proof came with the request: the access token
    /// names it in `cnf.jkt`, the answer's `token_type` is `DPoP`, and a public client's refresh
    /// token is bound to it. `nil`: no DPoP proof.
    var dpopThumbprint: String? = nil
}

extension EmulatorCore {
    /// Builds the token response for `issue` and remembers its refresh token.
    func issueTokens(_ issue: TokenIssue, now: Date) throws(EmulatorOAuthError) -> EmulatorHTTPResponse {
        let lifetimes = state.withLock { $0.lifetimes }
        let user = issue.user
        // The caller checked that the user has a profile in the tenant.
        let objectID = user.objectID(inTenant: issue.tenantID) ?? user.objectID
        let issued = Int64(now.timeIntervalSince1970.rounded(.down))
        let issuer = self.issuer(tenantID: issue.tenantID)
        let subject = Base64URL.encode(Array("\(issue.client.clientID):\(objectID)".utf8))
        let tokenID = String(Self.randomToken().prefix(22))
        let accessExpiry = issued + Int64(lifetimes.accessToken)

        var accessClaims = JSON.object([
            "aud": .string(issue.scope.resource),
            "iss": .string(issuer),
            "iat": .integer(issued),
            "nbf": .integer(issued),
            "exp": .integer(accessExpiry),
            "azp": .string(issue.client.clientID),
            "azpacr": .string("0"),
            "name": .string(user.name),
            "oid": .string(objectID),
            "preferred_username": .string(user.username),
            "scp": .string(issue.scope.permissions.joined(separator: " ")),
            "sub": .string(subject),
            "tid": .string(issue.tenantID),
            "uti": .string(tokenID),
            "ver": .string("2.0"),
        ])
        if let keyID = issue.proofKeyID {
            accessClaims = accessClaims.replacingMembers([(key: "cnf", value: JSON.object(["kid": .string(keyID)]))])
        } else if let thumbprint = issue.dpopThumbprint {
            accessClaims = accessClaims.replacingMembers([(key: "cnf", value: JSON.object(["jkt": .string(thumbprint)]))])
        }
        let accessToken: String
        do {
            accessToken = try signingKey.sign(claims: accessClaims)
        } catch {
            throw EmulatorOAuthError(status: 500, "server_error", 90033, "The emulator could not sign the access token: \(error).")
        }

        state.withLock {
            $0.prune(now: now)
            $0.accessTokens[tokenID] = (user.username.lowercased(), Date(timeIntervalSince1970: TimeInterval(accessExpiry)))
        }

        var members: [JSONMember] = [
            JSONMember(
                name: "token_type", value: .string(issue.proofKeyID != nil ? "pop" : issue.dpopThumbprint != nil ? "DPoP" : "Bearer")),
            JSONMember(name: "scope", value: .string(issue.scope.granted)),
            JSONMember(name: "expires_in", value: .integer(lifetimes.accessToken)),
            JSONMember(name: "ext_expires_in", value: .integer(max(lifetimes.accessToken, lifetimes.extendedAccessToken))),
            JSONMember(name: "access_token", value: .string(accessToken)),
        ]
        if issue.scope.includesOfflineAccess {
            let refreshToken = Self.randomToken()
            let grant = RefreshTokenGrant(
                clientID: issue.client.clientID, isFamily: issue.client.isFamilyMember, userID: user.objectID, tenantID: issue.tenantID,
                expiresAt: now.addingTimeInterval(TimeInterval(lifetimes.refreshToken)), lineage: issue.lineage,
                dpopThumbprint: issue.client.isConfidential ? nil : issue.dpopThumbprint)
            state.withLock {
                $0.prune(now: now)
                $0.refreshTokens[refreshToken] = grant
            }
            members.append(JSONMember(name: "refresh_token", value: .string(refreshToken)))
        }
        if issue.scope.includesOpenID {
            var idClaims: [JSONMember] = [
                JSONMember(name: "aud", value: .string(issue.client.clientID)),
                JSONMember(name: "iss", value: .string(issuer)),
                JSONMember(name: "iat", value: .integer(issued)),
                JSONMember(name: "nbf", value: .integer(issued)),
                JSONMember(name: "exp", value: .integer(issued + Int64(lifetimes.idToken))),
                JSONMember(name: "name", value: .string(user.name)),
            ]
            if let nonce = issue.nonce { idClaims.append(JSONMember(name: "nonce", value: .string(nonce))) }
            idClaims += [
                JSONMember(name: "oid", value: .string(objectID)),
                JSONMember(name: "preferred_username", value: .string(user.username)),
                JSONMember(name: "sub", value: .string(subject)),
                JSONMember(name: "tid", value: .string(issue.tenantID)),
                JSONMember(name: "ver", value: .string("2.0")),
            ]
            do {
                members.append(JSONMember(name: "id_token", value: .string(try signingKey.sign(claims: .object(idClaims)))))
            } catch {
                throw EmulatorOAuthError(status: 500, "server_error", 90033, "The emulator could not sign the ID token: \(error).")
            }
        }
        if issue.includesClientInfo {
            let clientInfo = JSON.object(["uid": .string(user.objectID), "utid": .string(user.tenantID)])
            members.append(JSONMember(name: "client_info", value: .string(Base64URL.encode(JSONWriter.write(clientInfo)))))
        }
        if issue.client.isFamilyMember {
            members.append(JSONMember(name: "foci", value: .string("1")))
        }
        return .json(.object(members))
    }
}
