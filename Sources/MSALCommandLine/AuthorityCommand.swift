import ArgumentParser
import Foundation
import MSAL
import MSALJSON

/// `msal authority …`
struct AuthorityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authority",
        abstract: "Validate authorities and discover their endpoints.",
        subcommands: [AuthorityShowCommand.self]
    )
}

/// `msal authority show AUTHORITY`: validation, instance discovery and OpenID metadata of one authority.
struct AuthorityShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Validate an authority and print its kind, tenant, hosts and endpoints.",
        discussion: """
            Runs what an application does before its first token request: URL validation, instance \
            discovery (Microsoft Entra hosts) and the OpenID configuration, with the issuer and endpoint \
            checks. Exit status 0 on success, 1 on failure (with --output json, an "error" object with \
            code, internal_code, oauth_error and message).
            """
    )

    @Argument(help: "The authority URL, such as https://login.microsoftonline.com/common.")
    var authority: String

    @Option(
        name: [.customLong("authority-kind"), .customLong("kind")],
        help: "The kind of authority; auto reads it from the URL (oidc must be asked for). --kind is the older spelling.")
    var kind: AuthorityKindOption = .auto

    @Flag(help: "Skip instance discovery (authority validation).")
    var noValidation = false

    @Option(
        name: .customLong("known-authority"),
        help: ArgumentHelp("A trusted authority: no instance discovery for its host.", valueName: "url"))
    var knownAuthorities: [String] = []

    @Flag(help: "Accept plain http for a loopback authority (local identity providers).")
    var allowHTTPLoopback = false

    @OptionGroup var network: NetworkOptions

    @Option(help: "Output format: text or json.")
    var output: OutputFormat = .text

    func run() async throws {
        let metadata: MSALAuthorityMetadata
        do {
            let options: MSALAuthorityOptions = allowHTTPLoopback ? [.allowInsecureLoopback] : []
            let parsed = try kind.authority(authority, options: options)
            let known = try knownAuthorities.map { try kind.authority($0, options: options) }
            let resolver = MSALAuthorityResolver(
                transport: try network.transport(), validatesAuthority: !noValidation, knownAuthorities: known)
            metadata = try await resolver.metadata(for: parsed)
        } catch {
            throw CommandOutput.fail(error, format: output)
        }
        switch output {
        case .json:
            CommandOutput.writeJSON(.object(["authority": Self.json(metadata)]))
        case .text:
            CommandOutput.write(Self.text(metadata))
        }
    }

    static func json(_ metadata: MSALAuthorityMetadata) -> JSON {
        func url(_ value: URL?) -> JSON { value.map { .string($0.absoluteString) } ?? .null }
        return .object([
            "kind": .string(metadata.kind.rawValue),
            "tenant": .string(metadata.tenant),
            "canonical_url": .string(metadata.authority.absoluteString),
            "cache_environment": .string(metadata.cacheEnvironment),
            "network_host": .string(metadata.networkHost),
            "aliases": .array(metadata.aliases.map { .string($0) }),
            "validated": .bool(metadata.isValidated),
            "authorization_endpoint": url(metadata.authorizationEndpoint),
            "token_endpoint": url(metadata.tokenEndpoint),
            "device_code_endpoint": url(metadata.deviceCodeEndpoint),
            "end_session_endpoint": url(metadata.endSessionEndpoint),
            "jwks_uri": url(metadata.jwksURI),
            "issuer": .string(metadata.issuer),
        ])
    }

    static func text(_ metadata: MSALAuthorityMetadata) -> String {
        let rows: [(String, String)] = [
            ("Kind", metadata.kind.rawValue),
            ("Tenant", metadata.tenant.isEmpty ? "-" : metadata.tenant),
            ("Canonical URL", metadata.authority.absoluteString),
            ("Cache environment", metadata.cacheEnvironment),
            ("Network host", metadata.networkHost),
            ("Aliases", metadata.aliases.joined(separator: ", ")),
            ("Validated", metadata.isValidated ? "yes (instance discovery)" : "no (not needed, known authority, or validation off)"),
            ("Authorize", metadata.authorizationEndpoint.absoluteString),
            ("Token", metadata.tokenEndpoint.absoluteString),
            ("Device code", metadata.deviceCodeEndpoint?.absoluteString ?? "-"),
            ("End session", metadata.endSessionEndpoint?.absoluteString ?? "-"),
            ("JWKS", metadata.jwksURI.absoluteString),
            ("Issuer", metadata.issuer),
        ]
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.1 }.joined(separator: "\n")
    }
}
