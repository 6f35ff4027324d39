import ArgumentParser
import Dispatch
import Foundation
import MSALEmulator
import MSALJOSE
import MSALJSON

/// `msal emulator`: runs the local identity provider until interrupted.
struct EmulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emulator",
        abstract: "Run a local identity provider (Microsoft identity platform v2.0) on 127.0.0.1.",
        discussion: """
            Serves the sample directory (tenants Contoso and Fabrikam, three users, three public \
            clients, two managed identities on the IMDS, App Service and Azure Arc endpoints) over plain HTTP on 127.0.0.1 until SIGINT or SIGTERM, then exits 0. Point an \
            application at one of the printed authorities with MSALAuthorityOptions.allowInsecureLoopback, \
            for example: msal authority show http://127.0.0.1:PORT/common --allow-http-loopback. \
            See docs/emulator.md.
            """
    )

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port: Int = 0

    @Option(
        name: .customLong("auto-sign-in"),
        help: ArgumentHelp("Sign this user in without showing the choice of users.", valueName: "username"))
    var autoSignIn: String?

    @Flag(help: "Sign in the user a login_hint names without showing the choice.")
    var honorLoginHint = false

    @Option(help: ArgumentHelp("Access token lifetime in seconds.", valueName: "seconds"))
    var accessTokenLifetime: Int?

    @Option(help: ArgumentHelp("Device code polling interval in seconds (0 turns slow_down off).", valueName: "seconds"))
    var deviceCodeInterval: Int?

    @Option(
        name: .customLong("arc-token-directory"),
        help: ArgumentHelp(
            "An existing directory where the Azure Arc managed-identity endpoint writes its challenge key files (without it that endpoint answers 500).",
            valueName: "directory"))
    var arcTokenDirectory: String?

    @Option(
        name: .customLong("web-api"),
        help: ArgumentHelp(
            "Also register a confidential client with this id (a GUID): a web API or daemon, authenticated with the secret in --web-api-secret-file. Users' tokens for api://ID/… are its to redeem on their behalf.",
            valueName: "client-id"))
    var webAPI: String?

    @Option(
        name: .customLong("web-api-secret-file"),
        help: ArgumentHelp("A file holding the --web-api client's secret (never an argument).", valueName: "file"))
    var webAPISecretFile: String?

    @Flag(
        help: ArgumentHelp(
            "Also run the broker double: answer as Microsoft's Linux identity broker (com.microsoft.identity.broker1) on the D-Bus session bus of DBUS_SESSION_BUS_ADDRESS, with this emulator's users and tokens. Run it on a private bus (dbus-run-session), never a desktop's."
        ))
    var broker = false

    @Option(
        name: .customLong("broker-account"),
        help: ArgumentHelp("With --broker: a user already signed in on the device (repeatable).", valueName: "username"))
    var brokerAccounts: [String] = []

    @Option(help: "Output format of the start-up summary: text or json (one line).")
    var output: OutputFormat = .text

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        guard (webAPI == nil) == (webAPISecretFile == nil) else {
            throw ValidationError("--web-api and --web-api-secret-file go together.")
        }
        if let webAPI, UUID(uuidString: webAPI) == nil {
            throw ValidationError("--web-api must be a client id in GUID form.")
        }
        guard broker || brokerAccounts.isEmpty else { throw ValidationError("--broker-account needs --broker.") }
    }

    func run() async throws {
        var configuration = MSALEmulator.Configuration.sample
        configuration.autoSignIn = autoSignIn
        configuration.honorsLoginHint = honorLoginHint
        if let accessTokenLifetime { configuration.lifetimes.accessToken = max(1, accessTokenLifetime) }
        if let deviceCodeInterval { configuration.lifetimes.deviceCodeInterval = max(0, deviceCodeInterval) }
        if let arcTokenDirectory {
            // An absolute path, as the configuration requires; the endpoint writes the key files there.
            configuration.arcTokenDirectory = URL(fileURLWithPath: arcTokenDirectory).standardizedFileURL.path
        }
        if let webAPI, let webAPISecretFile {
            let secret: String
            do {
                secret = try AppTokenCommand.secret(webAPISecretFile, what: "the web API secret file")
            } catch {
                CommandOutput.write("msal emulator: --web-api-secret-file: \(error)", toStandardError: true)
                throw ExitCode.failure
            }
            configuration.clients.append(
                MSALEmulator.Client(
                    clientID: webAPI, displayName: "Web API (--web-api)", credentials: [.secret(secret)],
                    appRoles: [configuration.resourceAudience: ["User.Read.All"]]))
        }

        // Signals are watched before the port opens, so an early SIGTERM is not lost.
        let (signals, continuation) = AsyncStream.makeStream(of: Int32.self)
        let sources = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        defer { sources.forEach { $0.cancel() } }

        let emulator: MSALEmulator
        var brokerDouble: MSALEmulator.Broker?
        do {
            emulator = try MSALEmulator(configuration: configuration)
            try await emulator.start(port: port)
            if broker {
                let started = try emulator.startBroker()
                brokerDouble = started
                for account in brokerAccounts { try started.signIn(username: account) }
            }
        } catch let error as MSALEmulatorError {
            brokerDouble?.stop()
            CommandOutput.write("msal emulator: \(error.message)", toStandardError: true)
            throw ExitCode.failure
        }
        switch output {
        case .text: CommandOutput.write(Self.summary(emulator, broker: brokerDouble))
        case .json: CommandOutput.write(JSONWriter.string(Self.json(emulator, broker: brokerDouble)))
        }
        var iterator = signals.makeAsyncIterator()
        let received = await iterator.next()
        brokerDouble?.stop()
        try await emulator.shutdown()
        CommandOutput.write("msal emulator: stopped (\(received == SIGINT ? "SIGINT" : "SIGTERM")).", toStandardError: true)
    }

    /// Authorities by name: `common`, `organizations`, then each tenant's id.
    private static func authorities(_ emulator: MSALEmulator) -> [(name: String, url: String, note: String)] {
        [
            ("common", emulator.authorityURL(tenant: "common").absoluteString, "any account"),
            ("organizations", emulator.authorityURL(tenant: "organizations").absoluteString, "any account"),
        ]
            + emulator.configuration.tenants.map { tenant in
                (tenant.displayName, emulator.authorityURL(tenant: tenant.id).absoluteString, tenant.domain.map { "also /\($0)" } ?? "")
            }
    }

    /// The managed-identity endpoints: name, token URL and the environment a service would set to reach it.
    private static func managedIdentityEndpoints(_ emulator: MSALEmulator) -> [(name: String, url: String, environment: [(String, String)])]
    {
        let base = emulator.baseURL.absoluteString
        return [
            ("IMDS", emulator.imdsTokenURL.absoluteString, [("AZURE_POD_IDENTITY_AUTHORITY_HOST", base)]),
            (
                "App Service", emulator.appServiceTokenURL.absoluteString,
                [
                    ("IDENTITY_ENDPOINT", emulator.appServiceTokenURL.absoluteString),
                    ("IDENTITY_HEADER", emulator.configuration.appServiceIdentityHeader),
                ]
            ),
            (
                "Azure Arc", emulator.azureArcTokenURL.absoluteString,
                [
                    ("IDENTITY_ENDPOINT", emulator.azureArcTokenURL.absoluteString),
                    ("IMDS_ENDPOINT", emulator.azureArcIMDSURL.absoluteString),
                ]
            ),
        ]
    }

    static func summary(_ emulator: MSALEmulator, broker: MSALEmulator.Broker? = nil) -> String {
        let configuration = emulator.configuration
        func tenantName(_ id: String) -> String { configuration.tenant(named: id)?.displayName ?? id }
        var lines = [
            "MSAL Emulator listening on \(emulator.baseURL.absoluteString)", "",
            "Authorities (use MSALAuthorityOptions.allowInsecureLoopback):",
        ]
        let authorities = authorities(emulator)
        let width = authorities.map(\.name.count).max() ?? 0
        for authority in authorities {
            lines.append("  \(authority.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(authority.url)  \(authority.note)")
        }
        lines += ["", "Clients:"]
        for client in configuration.clients {
            lines.append(
                "  \(client.clientID)  \(client.displayName)\(client.isFamilyMember ? " (family)" : "")  redirect URIs: \(client.redirectURIs.joined(separator: ", "))"
            )
        }
        lines += ["", "Users:"]
        for user in configuration.users {
            let guest =
                user.guestProfiles.isEmpty ? "" : ", guest in " + user.guestProfiles.map { tenantName($0.tenantID) }.joined(separator: ", ")
            let automatic = configuration.autoSignIn?.lowercased() == user.username.lowercased() ? " (signed in automatically)" : ""
            lines.append("  \(user.username)  \(user.name), home \(tenantName(user.tenantID))\(guest)\(automatic)")
        }
        if !configuration.managedIdentities.isEmpty {
            lines += ["", "Managed identities:"]
            for identity in configuration.managedIdentities {
                lines.append(
                    "  \(identity.isSystemAssigned ? "system-assigned" : "user-assigned  ")  client \(identity.clientID)  object \(identity.objectID)  tenant \(tenantName(identity.tenantID))  resource \(identity.resourceID)"
                )
            }
        }
        lines += ["", "Managed-identity endpoints (environment a service would set):"]
        let endpoints = managedIdentityEndpoints(emulator)
        let endpointWidth = endpoints.map(\.name.count).max() ?? 0
        for endpoint in endpoints {
            let environment = endpoint.environment.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
            lines.append(
                "  \(endpoint.name.padding(toLength: endpointWidth, withPad: " ", startingAt: 0))  \(endpoint.url)  \(environment)")
        }
        lines.append(
            "  Azure Arc key files: \(configuration.arcTokenDirectory ?? "none (--arc-token-directory DIR; the Arc endpoint answers 500)")")
        lines += [
            "",
            "Device login:        \(emulator.deviceLoginURL.absoluteString)",
            "Protected resource:  \(emulator.resourceURL.absoluteString) (audience \(configuration.resourceAudience))",
        ]
        if let broker {
            lines.append(
                "Broker double:       \(MSALEmulator.Broker.busName) on the session bus; device accounts: \(broker.accounts.isEmpty ? "none" : broker.accounts.joined(separator: ", "))"
            )
        }
        lines += [
            "",
            "Press Ctrl-C to stop.",
        ]
        return lines.joined(separator: "\n")
    }

    static func json(_ emulator: MSALEmulator, broker: MSALEmulator.Broker? = nil) -> JSON {
        let configuration = emulator.configuration
        return .object([
            "base_url": .string(emulator.baseURL.absoluteString),
            "port": .integer(emulator.port),
            "authorities": .array(authorities(emulator).map { .object(["name": .string($0.name), "url": .string($0.url)]) }),
            "tenants": .array(
                configuration.tenants.map { tenant in
                    .object([
                        "id": .string(tenant.id), "domain": tenant.domain.map(JSON.string) ?? .null, "name": .string(tenant.displayName),
                    ])
                }),
            "clients": .array(
                configuration.clients.map { client in
                    .object([
                        "client_id": .string(client.clientID), "name": .string(client.displayName), "family": .bool(client.isFamilyMember),
                        "redirect_uris": .array(client.redirectURIs.map(JSON.string)),
                    ])
                }),
            "users": .array(
                configuration.users.map { user in
                    .object([
                        "username": .string(user.username), "name": .string(user.name), "object_id": .string(user.objectID),
                        "tenant_id": .string(user.tenantID), "guest_tenants": .array(user.guestProfiles.map { .string($0.tenantID) }),
                    ])
                }),
            "device_login_url": .string(emulator.deviceLoginURL.absoluteString),
            "resource_url": .string(emulator.resourceURL.absoluteString),
            "managed_identities": .array(
                configuration.managedIdentities.map { identity in
                    .object([
                        "client_id": .string(identity.clientID), "object_id": .string(identity.objectID),
                        "resource_id": .string(identity.resourceID), "tenant_id": .string(identity.tenantID),
                        "system_assigned": .bool(identity.isSystemAssigned),
                    ])
                }),
            "managed_identity_endpoints": .array(
                managedIdentityEndpoints(emulator).map { endpoint in
                    .object([
                        "name": .string(endpoint.name), "url": .string(endpoint.url),
                        "environment": .object(endpoint.environment.map { JSONMember(name: $0.0, value: .string($0.1)) }),
                    ])
                }),
            "arc_token_directory": configuration.arcTokenDirectory.map(JSON.string) ?? .null,
            "broker": broker.map { broker in
                .object(["bus_name": .string(MSALEmulator.Broker.busName), "accounts": .array(broker.accounts.map(JSON.string))])
            } ?? .null,
        ])
    }
}
