import ArgumentParser
import Foundation
import MSAL
import MSALJSON

/// Where the cache verbs keep the cache: `--cache-storage`, `--cache FILE`, `--signal-file FILE`,
/// `--cache-fallback`, shared by every verb that reads the cache.
struct CacheFileOptions: ParsableArguments {
    /// The kinds of storage the CLI offers.
    enum StorageKind: String, ExpressibleByArgument, CaseIterable {
        case file
        case secretService = "secret-service"
        case memory
    }

    /// What a Secret Service cache does without a Secret Service.
    enum FallbackKind: String, ExpressibleByArgument, CaseIterable {
        case fail
        case memory
        case file
    }

    /// The environment variable that chooses the storage when `--cache-storage` is absent.
    static let storageVariable = "MSAL_CACHE_STORAGE"
    /// The environment variable that chooses the fallback when `--cache-fallback` is absent.
    static let fallbackVariable = "MSAL_CACHE_FALLBACK"

    @Option(
        name: .customLong("cache"),
        help: ArgumentHelp(
            "The token cache file, for file storage or a fallback to a file (default: $XDG_CACHE_HOME/msal/token_cache.json "
                + "or ~/.cache/msal/token_cache.json).", valueName: "file"))
    var path: String?

    @Option(
        name: .customLong("cache-storage"),
        help: ArgumentHelp(
            "Where the cache lives: file, secret-service (the desktop keyring, through libsecret) or memory "
                + "(default: $\(CacheFileOptions.storageVariable), else file).", valueName: "storage"))
    var storage: StorageKind?

    @Option(
        name: .customLong("cache-fallback"),
        help: ArgumentHelp(
            "With secret-service storage, what to do when no Secret Service answers: fail, memory or file "
                + "(default: $\(CacheFileOptions.fallbackVariable), else fail).", valueName: "policy"))
    var fallback: FallbackKind?

    @Option(
        name: .customLong("signal-file"),
        help: ArgumentHelp(
            "With secret-service storage, the empty signal file touched after each write, as msal-extensions names it "
                + "(default: token_cache.signal beside the default cache file).", valueName: "file"))
    var signalFile: String?

    @Option(
        name: .customLong("secret-service-timeout"),
        help: ArgumentHelp(
            "With secret-service storage, how long each D-Bus step (connecting, each call) may take before the "
                + "Secret Service counts as unavailable (default: 25).", valueName: "seconds"))
    var secretServiceTimeout: Double = 25

    /// Opens the cache; a relative path is taken from the current directory.
    func open() throws -> TokenCache {
        try TokenCache(config: config())
    }

    /// The configuration the options (and the environment) describe.
    ///
    /// - Throws: ``MSALFailure`` `invalidParameter` when `MSAL_CACHE_STORAGE` or `MSAL_CACHE_FALLBACK` holds an unknown value.
    func config(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> MSALCacheConfig {
        let kind = try storage ?? Self.environmentValue(Self.storageVariable, environment) ?? .file
        switch kind {
        case .file:
            return MSALCacheConfig(storage: .file(path: Self.absolute(path)))
        case .memory:
            return MSALCacheConfig(storage: .memory)
        case .secretService:
            let policy: MSALSecretServiceStorage.Fallback
            switch try fallback ?? Self.environmentValue(Self.fallbackVariable, environment) ?? .fail {
            case .fail: policy = .fail
            case .memory: policy = .memory
            case .file: policy = .file(path: Self.absolute(path))
            }
            let signal = signalFile.map { $0.hasPrefix("~") ? $0 : Self.absolute($0)! }
            return MSALCacheConfig(
                storage: .secretService(
                    MSALSecretServiceStorage(signalFilePath: signal, fallback: policy, operationTimeout: secretServiceTimeout)))
        }
    }

    /// `path` made absolute against the current directory.
    static func absolute(_ path: String?) -> String? {
        guard let path, !path.hasPrefix("/") else { return path }
        return FileManager.default.currentDirectoryPath + "/" + path
    }

    /// The value of `name` in `environment`, parsed; `nil` when unset or empty.
    static func environmentValue<Kind: RawRepresentable & CaseIterable>(_ name: String, _ environment: [String: String]) throws -> Kind?
    where Kind.RawValue == String {
        guard let text = environment[name], !text.isEmpty else { return nil }
        guard let value = Kind(rawValue: text) else {
            let known = Kind.allCases.map(\.rawValue).joined(separator: ", ")
            throw MSALFailure(.internal, internalCode: .internalErrorInvalidParameter, message: "\(name)=\(text) is not one of: \(known)")
        }
        return value
    }
}

/// `msal accounts`
struct AccountsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accounts", abstract: "List the accounts in a token cache.")

    @OptionGroup var cache: CacheFileOptions

    @Option(name: .customLong("client-id"), help: "Only the accounts this application is signed in to.")
    var clientID: String?

    @Flag(
        name: .customLong("broker"),
        help: "Also the accounts Microsoft's Linux identity broker has for --client-id (default $MSAL_CLIENT_ID).")
    var broker = false

    @Option(help: "Output format: text or json.")
    var output: OutputFormat = .text

    func run() async throws {
        do {
            let accounts: [MSALAccount]
            if broker {
                accounts = try await brokerAccounts()
            } else {
                let tokenCache = try cache.open()
                let client = clientID
                accounts = try await tokenCache.read(clientID: client ?? "msal-cli") { contents in
                    client.map { contents.accounts(clientID: $0, environment: nil, signedInOnly: true) }
                        ?? contents.allAccounts(environment: nil)
                }
            }
            switch output {
            case .json:
                CommandOutput.writeJSON(.object([JSONMember(name: "accounts", value: .array(accounts.map(Self.json)))]))
            case .text:
                if accounts.isEmpty { CommandOutput.write("No accounts.") }
                for account in accounts {
                    CommandOutput.write(
                        "\(account.identifier ?? "-")  \(account.username ?? "-")  \(account.environment)\(account.isKnownToBroker ? "  (broker)" : "")"
                    )
                    for profile in account.tenantProfiles ?? [] {
                        CommandOutput.write(
                            "    tenant \(profile.tenantId)\(profile.isHomeTenantProfile ? " (home)" : "")  object \(profile.identifier)")
                    }
                }
            }
        } catch {
            throw CommandOutput.fail(error, format: output)
        }
    }

    /// The accounts of the application `--client-id` names: the cache's, then the broker's that
    /// the cache lacks (marked), as ``MSALPublicClientApplication/accountsFromDevice(for:)`` lists
    /// them. A broker that does not answer is reported on standard error, and the cache's are listed.
    private func brokerAccounts() async throws -> [MSALAccount] {
        guard let clientID = clientID ?? ProcessInfo.processInfo.environment["MSAL_CLIENT_ID"], !clientID.isEmpty else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "--broker lists the accounts of one application: pass --client-id or set MSAL_CLIENT_ID")
        }
        let config = MSALPublicClientApplicationConfig(clientId: clientID)
        config.multipleCloudsSupported = true
        config.cacheConfig = try cache.config()
        // The cache's accounts from an application without the broker, the broker asked once.
        let application = try MSALPublicClientApplication(configuration: config)
        let cached = try await application.accountsFromDevice(for: MSALAccountEnumerationParameters())
        let broker = BrokerFlow(options: MSALLinuxBrokerOptions(), tokens: application.client)
        do throws(MSALFailure) {
            return BrokerFlow.merge(cached, try await broker.accounts(correlationID: UUID()))
        } catch {
            CommandOutput.write("The identity broker's accounts are not listed: \(error.message)", toStandardError: true)
            return cached
        }
    }

    static func json(_ account: MSALAccount) -> JSON {
        .object([
            JSONMember(name: "identifier", value: account.identifier.map { .string($0) } ?? .null),
            JSONMember(name: "username", value: account.username.map { .string($0) } ?? .null),
            JSONMember(name: "environment", value: .string(account.environment)),
            JSONMember(name: "broker", value: .bool(account.isKnownToBroker)),
            JSONMember(
                name: "tenant_profiles",
                value: .array(
                    (account.tenantProfiles ?? []).map { profile in
                        .object([
                            JSONMember(name: "tenant_id", value: .string(profile.realm)),
                            JSONMember(name: "object_id", value: .string(profile.objectID)),
                            JSONMember(name: "environment", value: .string(profile.cloud)),
                            JSONMember(name: "is_home_tenant", value: .bool(profile.isHomeTenantProfile)),
                        ])
                    })),
        ])
    }
}

/// `msal cache …`
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache", abstract: "Inspect and edit a token cache file.",
        subcommands: [CacheShowCommand.self, CacheRemoveCommand.self, CacheMigrateCommand.self])
}

/// `msal cache show`
///
/// Prints every entry with its credentials redacted (see ``CacheShowRedaction``); there is no option
/// that shows them.
struct CacheShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show the entries of a token cache, secrets redacted.")

    @OptionGroup var cache: CacheFileOptions

    @Option(help: "Output format: text or json.")
    var output: OutputFormat = .text

    func run() async throws {
        do {
            let tokenCache = try cache.open()
            let document = try await tokenCache.read(clientID: "msal-cli") { $0.document }
            let storage = tokenCache.storageDescription
            let others = document.unknownMembers.map { (name: $0.name, shown: CacheShowRedaction.otherSection($0.raw)) }
            switch output {
            case .json:
                var sections: [JSONMember] = [JSONMember(name: "storage", value: .string(storage))]
                for section in CacheSection.allCases {
                    let entries = document[section].sorted { $0.key < $1.key }.map { key, entry in
                        JSONMember(name: key, value: Self.json(CacheShowRedaction.shownMembers(of: entry, in: section)))
                    }
                    sections.append(JSONMember(name: section.name, value: .object(entries)))
                }
                CommandOutput.writeJSON(
                    .object(
                        sections + [
                            JSONMember(name: "unknown_sections", value: .array(others.map { .string($0.name) })),
                            JSONMember(
                                name: "other_sections", value: .object(others.map { JSONMember(name: $0.name, value: Self.json($0.shown)) })
                            ),
                        ]))
            case .text:
                CommandOutput.write("Storage: \(storage)")
                for section in CacheSection.allCases {
                    CommandOutput.write("\(section.name) (\(document[section].count))")
                    for (key, entry) in document[section].sorted(by: { $0.key < $1.key }) {
                        Self.writeText(key: key, members: CacheShowRedaction.shownMembers(of: entry, in: section))
                    }
                }
                if !others.isEmpty {
                    CommandOutput.write("Other sections (kept as they are): \(others.map(\.name).joined(separator: ", "))")
                }
                for other in others {
                    switch other.shown {
                    case .redacted(let marker):
                        CommandOutput.write("\(other.name): \(marker)")
                    case .entries(let entries):
                        CommandOutput.write("\(other.name) (\(entries.count))")
                        for (key, entry) in entries {
                            switch entry {
                            case .members(let members): Self.writeText(key: key, members: members)
                            case .redacted(let marker): CommandOutput.write("  \(key): \(marker)")
                            }
                        }
                    }
                }
            }
        } catch {
            throw CommandOutput.fail(error, format: output)
        }
    }

    /// Writes one entry: its key, then a line per member.
    static func writeText(key: String, members: [(name: String, value: String)]) {
        CommandOutput.write("  \(key)")
        for member in members {
            CommandOutput.write("    \(member.name): \(member.value)")
        }
    }

    /// An entry's shown members as a JSON object of strings.
    static func json(_ members: [(name: String, value: String)]) -> JSON {
        .object(members.map { JSONMember(name: $0.name, value: .string($0.value)) })
    }

    /// A section the schema does not define, as shown: an object of entries, or one marker.
    static func json(_ section: CacheShowRedaction.OtherSection) -> JSON {
        switch section {
        case .redacted(let marker):
            return .string(marker)
        case .entries(let entries):
            return .object(
                entries.map { key, entry in
                    switch entry {
                    case .members(let members): JSONMember(name: key, value: json(members))
                    case .redacted(let marker): JSONMember(name: key, value: .string(marker))
                    }
                })
        }
    }
}

/// `msal cache remove`
struct CacheRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove an account's entries from a token cache.")

    @OptionGroup var cache: CacheFileOptions

    @Option(help: "The home account id (uid.utid) of the account to remove.")
    var account: String

    @Option(
        name: .customLong("client-id"),
        help: "Remove only this application's tokens (the account stays while other applications hold some).")
    var clientID: String?

    @Option(help: "Output format: text or json.")
    var output: OutputFormat = .text

    func run() async throws {
        do {
            let tokenCache = try cache.open()
            let account = self.account
            let client = clientID
            let removed = try await tokenCache.write(clientID: client ?? "msal-cli", partition: .account(account)) { contents in
                if let client {
                    var total = 0
                    for environment in Set(contents.document[.account].values.compactMap { $0["environment"] }) {
                        total += contents.removeAccount(homeAccountID: account, environment: environment, clientID: client)
                    }
                    return total
                }
                return contents.removeAllEntries(homeAccountID: account, environment: nil)
            }
            switch output {
            case .json:
                CommandOutput.writeJSON(
                    .object([
                        JSONMember(name: "account", value: .string(account)), JSONMember(name: "removed_entries", value: .integer(removed)),
                    ]))
            case .text:
                CommandOutput.write(removed == 0 ? "Nothing to remove for \(account)." : "Removed \(removed) entries of \(account).")
            }
        } catch {
            throw CommandOutput.fail(error, format: output)
        }
    }
}
