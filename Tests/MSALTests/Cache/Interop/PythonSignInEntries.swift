import Foundation
import MSALEmulator
import Testing

/// A user's sign-in entries as swift-msal and MSAL for Python 1.39 each write them after the same
/// grant (a refresh-token migration, a user federated identity credential), compared section by
/// section: the keys, the members each library writes that the other does not, and the values of
/// the members that identify an entry. MSAL for Python's side is what `emulator_session.py`'s
/// `entries_of` reports.
enum PythonSignInEntries {
    /// The sections both write for a sign-in, in the schema's order.
    static let sections = ["AccessToken", "RefreshToken", "IdToken", "Account", "AppMetadata"]
    /// The host both write under: the authority's, which the emulator's instance discovery names
    /// its own `preferred_cache`.
    static let environment = "login.microsoftonline.com"
    /// The Contoso tenant the interop suites sign users in at.
    static let tenant = MSALEmulator.Configuration.sampleContosoTenantID
    /// The user.
    static let username = "adele@contoso.example"
    /// What the emulator grants for `User.Read` and the reserved scopes (the answer's `scope`, the
    /// entries' `target`): the resource's scope and the OpenID Connect scopes but `offline_access`.
    static let grantedTarget: Set<String> = ["User.Read", "openid", "profile"]
    /// The members that identify an entry, compared by value between the libraries' entries (never
    /// `secret`, times, or `target`, whose order differs and is compared as a set).
    static let identityMembers = [
        "home_account_id", "environment", "client_id", "realm", "credential_type", "token_type", "family_id", "username",
        "local_account_id", "authority_type",
    ]

    /// Members one library writes and the other does not, by section.
    typealias MemberDifferences = [String: (swiftOnly: Set<String>, pythonOnly: Set<String>)]

    /// One entry of MSAL for Python's cache as the scripts report it.
    struct PythonEntry {
        var key: String
        var members: Set<String>
        /// The string members but `secret`.
        var values: [String: String]
    }

    /// The `entries` member of a script's report, by section.
    static func pythonEntries(_ report: [String: Any]) throws -> [String: [PythonEntry]] {
        let sections = try #require(report["entries"] as? [String: [[String: Any]]])
        var entries: [String: [PythonEntry]] = [:]
        for (section, list) in sections {
            entries[section] = try list.map { item in
                PythonEntry(
                    key: try #require(item["key"] as? String), members: Set(try #require(item["members"] as? [String])),
                    values: try #require(item["values"] as? [String: String]))
            }
        }
        return entries
    }

    /// `uid.utid` of the user: its object id and home tenant, as the emulator's `client_info` names them.
    static func homeAccountID() throws -> String {
        let user = try #require(MSALEmulator.Configuration.sample.user(named: username))
        return "\(user.objectID).\(user.tenantID)"
    }

    /// The space-separated words of `text`.
    static func words(_ text: String?) -> Set<String> {
        Set((text ?? "").split(separator: " ").map(String.init))
    }

    /// Whether `key` is `prefix` followed by `scopes`, lower-cased, in any order.
    static func isKey(_ key: String, prefix: String, scopes: Set<String>) -> Bool {
        key.hasPrefix(prefix) && words(String(key.dropFirst(prefix.count))) == Set(scopes.map { $0.lowercased() })
    }

    /// The cache file at `path` as JSON; empty when there is no file or it is empty.
    static func document(_ path: String) throws -> [String: Any] {
        guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else { return [:] }
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The entries of one section of a cache document, by key.
    static func section(_ document: [String: Any], _ name: String) -> [String: [String: Any]] {
        document[name] as? [String: [String: Any]] ?? [:]
    }

    /// Expects swift-msal's cache file at `swiftCache` and MSAL for Python's `theirs` to hold one
    /// entry per section for the user and `client`, under the same keys but for the documented
    /// shapes — the access token key's target order (swift-msal sorts the scopes without regard to
    /// case, MSAL for Python by code point) and the refresh token key (swift-msal: MSAL for iOS and
    /// .NET's, with `refreshTokenKeyClient` — the family id for a family refresh token — and no
    /// target; MSAL for Python: the client id and the target) —, the same members but
    /// `differences`, and the same identifying values. `extra` checks more of one section.
    static func expectSame(
        swiftCache: String, pythonEntries theirs: [String: [PythonEntry]], client: String, refreshTokenKeyClient: String,
        differences: MemberDifferences,
        extra: (_ section: String, _ ours: [String: Any], _ theirs: PythonEntry) -> Void = { _, _, _ in }
    ) throws {
        let document = try document(swiftCache)
        #expect(sections.filter { !section(document, $0).isEmpty } == sections)
        #expect(sections.filter { !(theirs[$0] ?? []).isEmpty } == sections)
        let home = try homeAccountID()
        for name in sections {
            let ours = section(document, name)
            let theirEntries = theirs[name] ?? []
            #expect(ours.count == 1, "\(name): swift-msal's entries")
            #expect(theirEntries.count == 1, "\(name): MSAL for Python's entries")
            guard let ourPair = ours.first, let their = theirEntries.first else { continue }
            let (ourKey, ourEntry) = (ourPair.key, ourPair.value)
            switch name {
            case "AccessToken":
                let prefix = "\(home)-\(environment)-accesstoken-\(client)-\(tenant)-"
                #expect(isKey(ourKey, prefix: prefix, scopes: grantedTarget), "\(ourKey)")
                #expect(isKey(their.key, prefix: prefix, scopes: grantedTarget), "\(their.key)")
                #expect(words(ourEntry["target"] as? String) == grantedTarget)
                #expect(words(their.values["target"]) == grantedTarget)
            case "RefreshToken":
                #expect(ourKey == "\(home)-\(environment)-refreshtoken-\(refreshTokenKeyClient)--")
                #expect(isKey(their.key, prefix: "\(home)-\(environment)-refreshtoken-\(client)--", scopes: grantedTarget))
                #expect(words(their.values["target"]) == grantedTarget)
            case "IdToken":
                #expect(ourKey == "\(home)-\(environment)-idtoken-\(client)-\(tenant)-")
                #expect(their.key == ourKey)
            case "Account":
                #expect(ourKey == "\(home)-\(environment)-\(tenant)")
                #expect(their.key == ourKey)
                #expect(ourEntry["username"] as? String == username)
            default:
                #expect(ourKey == "appmetadata-\(environment)-\(client)")
                #expect(their.key == ourKey)
            }
            extra(name, ourEntry, their)
            let ourMembers = Set(ourEntry.keys)
            let difference = differences[name] ?? (swiftOnly: [], pythonOnly: [])
            #expect(ourMembers.subtracting(their.members) == difference.swiftOnly, "\(name): members only swift-msal writes")
            #expect(their.members.subtracting(ourMembers) == difference.pythonOnly, "\(name): members only MSAL for Python writes")
            for member in identityMembers where ourEntry[member] != nil || their.values[member] != nil {
                #expect(ourEntry[member] as? String == their.values[member], "\(name).\(member)")
            }
        }
    }
}
