import Foundation
import MSALJSON

/// A token request to the identity broker: the `authParameters` object Microsoft's runtime sends
/// (`docs/broker.md`), with the same members and defaults.
package struct BrokerAuthParameters: Sendable {
    /// MSAL's PoP: the resource request the signed HTTP request is for.
    package struct ProofOfPossession: Sendable, Hashable {
        package var httpMethod: String
        package var host: String
        package var path: String
        package var nonce: String

        package init(httpMethod: String, host: String, path: String, nonce: String) {
            self.httpMethod = httpMethod
            self.host = host
            self.path = path
            self.nonce = nonce
        }
    }

    /// The redirect URI MSAL for Python gives the broker on Linux.
    package static let defaultRedirectURI = "https://login.microsoftonline.com/common/oauth2/nativeclient"

    package var clientID: String
    package var authority: String
    package var scopes: [String]
    package var redirectURI = defaultRedirectURI
    /// The account the tokens are for; `nil` for a sign-in.
    package var account: BrokerAccount?
    /// The login hint (the account's username when `account` is set).
    package var loginHint: String?
    /// A claims request (JSON text).
    package var claims: String?
    package var proofOfPossession: ProofOfPossession?

    package init(clientID: String, authority: String, scopes: [String]) {
        self.clientID = clientID
        self.authority = authority
        self.scopes = scopes
    }

    /// The request of `acquireTokenSilently` (`interactive` false) or `acquireTokenInteractively`.
    package func request(interactive: Bool) -> JSON {
        var members: [JSONMember] = [
            JSONMember(name: "accessTokenToRenew", value: .string("")),
            JSONMember(name: "account", value: account?.json ?? .null),
            JSONMember(
                name: "additionalQueryParametersForAuthorization",
                value: .object([
                    JSONMember(name: "msal_client_sku", value: .string("MSAL.Swift.Linux")),
                    JSONMember(name: "msal_client_ver", value: .string(MSALVersion)),
                ])),
            JSONMember(name: "authority", value: .string(authority)),
            JSONMember(name: "authorizationType", value: .integer(interactive ? 6 : 1)),
            JSONMember(name: "clientId", value: .string(clientID)),
            JSONMember(name: "decodedClaims", value: .string(claims ?? "")),
            JSONMember(name: "enrollmentId", value: .string("")),
        ]
        if account == nil { members.append(JSONMember(name: "isSignIn", value: .bool(true))) }
        members += [
            JSONMember(name: "isTestMode", value: .bool(false)),
            JSONMember(name: "password", value: .string("")),
        ]
        if interactive {
            members.append(JSONMember(name: "parentWindow", value: .object([JSONMember(name: "handle", value: .integer(0))])))
        }
        members += [
            JSONMember(
                name: "popParams",
                value: proofOfPossession.map { pop in
                    .object([
                        JSONMember(name: "clientClaims", value: .string("")),
                        JSONMember(name: "homeAccountId", value: .string(account?.homeAccountID ?? "")),
                        JSONMember(name: "httpMethod", value: .string(pop.httpMethod)),
                        JSONMember(name: "nonce", value: .string(pop.nonce)),
                        JSONMember(name: "uriHost", value: .string(pop.host)),
                        JSONMember(name: "uriPath", value: .string(pop.path)),
                    ])
                } ?? .null),
            JSONMember(name: "redirectUri", value: .string(redirectURI)),
            JSONMember(name: "requestedScopes", value: .array(scopes.map(JSON.string))),
            JSONMember(name: "username", value: .string(account?.username ?? loginHint ?? "")),
            JSONMember(name: "uxContextHandle", value: .integer(-1)),
        ]
        var request: [JSONMember] = [JSONMember(name: "authParameters", value: .object(members))]
        if interactive { request.append(JSONMember(name: "parentWindowHandle", value: .integer(0))) }
        return .object(request)
    }
}
