import ArgumentParser
import Foundation
import Glibc
import MSAL

/// `msal app-token`: an app token for a confidential client (the client credentials grant).
///
/// Secrets are read from files or standard input, never from arguments, which other users of the
/// machine can see in the process list.
struct AppTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app-token",
        abstract: "Get an app token for a confidential client (client credentials), from the cache when one is valid.",
        discussion: """
            Exactly one credential: --secret-file (a file, or - for standard input), --certificate (a PEM \
            certificate or chain; its private key in --private-key, else in the same file), or \
            --assertion-file (a signed JWT, read again for every request, as a workload identity token file is). \
            With --mtls the certificate authenticates the client in the TLS handshake instead of a signed \
            assertion (RFC 8705 mutual TLS); from Microsoft Entra the token is then an mTLS proof-of-possession \
            token (mtls_pop), bound to the certificate.
            """)

    @Option(name: .customLong("client-id"), help: "The application (client) id. Default: $MSAL_CLIENT_ID.")
    var clientID: String?

    @Option(help: "The authority, naming the tenant, such as https://login.microsoftonline.com/contoso.onmicrosoft.com.")
    var authority: String

    @Option(
        name: .customLong("authority-kind"),
        help: "The kind of authority: auto reads it from the URL; a generic OpenID Connect provider needs oidc.")
    var authorityKind: AuthorityKindOption = .auto

    @Option(help: ArgumentHelp("The scopes: one resource's /.default.", valueName: "scopes"))
    var scopes: String = "https://graph.microsoft.com/.default"

    @Option(
        name: .customLong("secret-file"),
        help: ArgumentHelp("A file holding the client secret, or - for standard input.", valueName: "file"))
    var secretFile: String?

    @Option(help: ArgumentHelp("A PEM file with the certificate (or chain) of the client's key.", valueName: "file"))
    var certificate: String?

    @Option(
        name: .customLong("private-key"),
        help: ArgumentHelp("A PEM file with the private key (default: the --certificate file).", valueName: "file"))
    var privateKey: String?

    @Option(
        name: .customLong("private-key-password-file"),
        help: ArgumentHelp("A file holding the password of an encrypted private key, or - for standard input.", valueName: "file"))
    var privateKeyPasswordFile: String?

    @Flag(name: .customLong("send-x5c"), help: "Send the certificate chain with the assertion (subject name/issuer authentication).")
    var sendX5C = false

    @Flag(
        name: .customLong("mtls"),
        help: "Authenticate with the --certificate in mutual TLS (RFC 8705); from Microsoft Entra, get an mtls_pop token bound to it.")
    var mutualTLS = false

    @Option(
        name: .customLong("assertion-file"),
        help: ArgumentHelp("A file holding a signed client assertion (JWT), read for every request.", valueName: "file"))
    var assertionFile: String?

    @Option(
        name: .customLong("fmi-path"),
        help: ArgumentHelp(
            "A federated managed identity path (fmi_path), such as an agent identity's: its token is cached apart.", valueName: "path"))
    var fmiPath: String?

    @Flag(name: .customLong("force-refresh"), help: "Ask the token endpoint even when a cached token is valid.")
    var forceRefresh = false

    @OptionGroup var cache: CacheFileOptions

    @OptionGroup var network: NetworkOptions

    @Flag(name: .customLong("allow-http-loopback"), help: "Allow a plain-http authority on a loopback host (local identity providers).")
    var allowHTTPLoopback = false

    @Option(help: "Output format: text or json.")
    var output: OutputFormat = .text

    /// The largest secret or password file read.
    static let maximumSecretBytes = 64 * 1024

    func validate() throws {
        let credentials = [secretFile, certificate, assertionFile].compactMap { $0 }
        guard credentials.count == 1 else {
            throw ValidationError("Give exactly one credential: --secret-file, --certificate or --assertion-file.")
        }
        if certificate == nil, privateKey != nil || privateKeyPasswordFile != nil || sendX5C || mutualTLS {
            throw ValidationError("--private-key, --private-key-password-file, --send-x5c and --mtls go with --certificate.")
        }
        if mutualTLS, sendX5C {
            throw ValidationError("--send-x5c goes with a signed assertion; --mtls sends none.")
        }
        if secretFile == "-", privateKeyPasswordFile == "-" {
            throw ValidationError("Only one input can come from standard input.")
        }
    }

    func run() async throws {
        do {
            guard let clientID = clientID ?? ProcessInfo.processInfo.environment["MSAL_CLIENT_ID"], !clientID.isEmpty else {
                throw MSALFailure(
                    .internal, internalCode: .internalErrorInvalidParameter, message: "No client id: pass --client-id or set MSAL_CLIENT_ID"
                )
            }
            let authorityObject = try authorityKind.authority(authority, options: allowHTTPLoopback ? [.allowInsecureLoopback] : [])
            let configuration = MSALConfidentialClientApplicationConfig(
                clientId: clientID, clientCredential: try credential(), authority: authorityObject)
            if ApplicationOptions.isLocal(authorityObject) {
                // A local identity provider is trusted as given: there is no instance discovery for it.
                configuration.knownAuthorities = [authorityObject]
            }
            configuration.cacheConfig = try cache.config()
            configuration.transport = try network.transport()
            let application = try MSALConfidentialClientApplication(configuration: configuration)
            let parameters = MSALClientCredentialParameters(
                scopes: scopes.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init))
            parameters.forceRefresh = forceRefresh
            parameters.fmiPath = fmiPath
            if mutualTLS, authorityObject.kind == .aad {
                parameters.authenticationScheme = MSALAuthenticationSchemeMutualTLSPop()
            }
            TokenOutput.write(try await application.acquireTokenForClient(with: parameters), format: output)
        } catch {
            throw CommandOutput.fail(error, format: output)
        }
    }

    /// The credential the options name.
    private func credential() throws -> MSALClientCredential {
        if let secretFile {
            let secret = try Self.secret(secretFile, what: "the secret file", prompt: "Client secret: ")
            guard !secret.isEmpty else {
                throw MSALFailure(.internal, internalCode: .invalidCredential, message: "The secret file is empty")
            }
            return .secret(secret)
        }
        if let certificate {
            let password = try privateKeyPasswordFile.map {
                try Self.secret($0, what: "the password file", prompt: "Private key password: ")
            }
            let loaded = try MSALClientCertificate(
                privateKeyFile: privateKey ?? certificate, certificateFile: certificate, privateKeyPassword: password)
            return mutualTLS ? .tlsClientCertificate(loaded) : .certificate(loaded, sendX5C: sendX5C)
        }
        let path = assertionFile!
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return .workloadIdentity(tokenFile: absolute)
    }

    /// The text of a secret file (or standard input for `-`), without a final line break.
    ///
    /// Standard input that is a terminal is read as a typed secret: `prompt` on standard error and
    /// no echo (``TerminalSecretReader``); otherwise it is read to its end, as a file is. Bytes that
    /// are not UTF-8 are refused with ``MSALInternalError/invalidCredential`` (naming the offset,
    /// never the text) rather than sent changed.
    static func secret(_ source: String, what: String, prompt: String = "Secret: ") throws -> String {
        let bytes: [UInt8]
        let name: String
        if source == "-" {
            name = "standard input (\(what))"
            if isatty(STDIN_FILENO) == 1 {
                bytes = try TerminalSecretReader.readLine(prompt: prompt, limit: maximumSecretBytes)
            } else {
                bytes = try InputReader.standardInput(limit: maximumSecretBytes)
            }
        } else {
            name = what
            bytes = try InputReader.regularFile(source, limit: maximumSecretBytes, name: what)
        }
        var text = try CredentialFile.text(bytes, name: name.prefix(1).uppercased() + name.dropFirst())
        while let last = text.last, last.isNewline { text.removeLast() }
        return text
    }
}
