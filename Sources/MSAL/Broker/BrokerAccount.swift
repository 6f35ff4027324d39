import Foundation
import MSALJSON

/// An account as the identity broker names it (`getAccounts`, a token answer's `account`, and the
/// `account` of a request): home account id `uid.utid`, local account id, cloud, tenant, username.
package struct BrokerAccount: Sendable, Hashable {
    package var homeAccountID: String
    package var localAccountID: String
    package var environment: String
    package var realm: String
    package var username: String
    package var name: String?
    package var givenName: String?
    package var familyName: String?
    package var clientInfo: String?

    package init(
        homeAccountID: String, localAccountID: String, environment: String, realm: String, username: String, name: String? = nil,
        givenName: String? = nil, familyName: String? = nil, clientInfo: String? = nil
    ) {
        self.homeAccountID = homeAccountID
        self.localAccountID = localAccountID
        self.environment = environment
        self.realm = realm
        self.username = username
        self.name = name
        self.givenName = givenName
        self.familyName = familyName
        self.clientInfo = clientInfo
    }

    /// The account `value` describes; `nil` when it lacks the home account id (`uid.utid`), the
    /// cloud or the username.
    package init?(_ value: JSONValue?) {
        guard let value, value.kind == .object, let home = value["homeAccountId"]?.string, Self.isHomeAccountID(home),
            let environment = value["environment"]?.string, !environment.isEmpty, let username = value["username"]?.string,
            !username.isEmpty
        else { return nil }
        func optional(_ name: String) -> String? { value[name]?.string.flatMap { $0.isEmpty ? nil : $0 } }
        self.init(
            homeAccountID: home, localAccountID: optional("localAccountId") ?? String(home.prefix { $0 != "." }),
            environment: environment, realm: optional("realm") ?? String(home.split(separator: ".").last ?? ""), username: username,
            name: optional("name"), givenName: optional("givenName"), familyName: optional("familyName"),
            clientInfo: optional("clientInfo"))
    }

    /// `uid.utid`: two non-empty parts.
    static func isHomeAccountID(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { !$0.isEmpty }
    }

    /// The account object of a request, with the members Microsoft's runtime sends.
    package var json: JSON {
        .object([
            JSONMember(name: "alternativeAccountId", value: .string("")),
            JSONMember(name: "clientInfo", value: .string(clientInfo ?? "")),
            JSONMember(name: "environment", value: .string(environment)),
            JSONMember(name: "familyName", value: .string(familyName ?? "")),
            JSONMember(name: "givenName", value: .string(givenName ?? "")),
            JSONMember(name: "homeAccountId", value: .string(homeAccountID)),
            JSONMember(name: "homeEnvironment", value: .string("")),
            JSONMember(name: "localAccountId", value: .string(localAccountID)),
            JSONMember(name: "middleName", value: .string("")),
            JSONMember(name: "name", value: .string(name ?? "")),
            JSONMember(name: "passwordChangeUrl", value: .string("")),
            JSONMember(name: "passwordExpiry", value: .integer(0)),
            JSONMember(name: "realm", value: .string(realm)),
            JSONMember(name: "username", value: .string(username)),
        ])
    }
}
