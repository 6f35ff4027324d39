import ArgumentParser
import Foundation
import MSAL

/// `msal managed-identity …`: tokens for the managed identity of the Azure resource the command runs on.
struct ManagedIdentityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "managed-identity",
        abstract: "Get tokens for this Azure resource's managed identity.",
        subcommands: [ManagedIdentityTokenCommand.self, ManagedIdentitySourceCommand.self])
}

/// Which identity: system-assigned unless one user-assigned id is given.
struct ManagedIdentityOptions: ParsableArguments {
    @Option(name: .customLong("client-id"), help: "A user-assigned identity, by client id.")
    var clientID: String?

    @Option(name: .customLong("object-id"), help: "A user-assigned identity, by object (principal) id.")
    var objectID: String?

    @Option(name: .customLong("resource-id"), help: "A user-assigned identity, by ARM resource id.")
    var resourceID: String?

    func validate() throws {
        guard [clientID, objectID, resourceID].compactMap({ $0 }).count <= 1 else {
            throw ValidationError("Name the user-assigned identity once: --client-id, --object-id or --resource-id.")
        }
    }

    var identity: MSALManagedIdentity {
        if let clientID { return .userAssigned(.clientID(clientID)) }
        if let objectID { return .userAssigned(.objectID(objectID)) }
        if let resourceID { return .userAssigned(.resourceID(resourceID)) }
        return .systemAssigned
    }
}

/// `msal managed-identity token`
struct ManagedIdentityTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Get a token for a resource with this machine's managed identity, from the cache when one is valid.",
        discussion: """
            The source (App Service, Service Fabric, Azure Machine Learning, Cloud Shell, Azure Arc or IMDS) is \
            detected from the environment the platform sets; AZURE_POD_IDENTITY_AUTHORITY_HOST names another \
            instance metadata service than 169.254.169.254.
            """)

    @Option(help: "The resource the token is for, such as https://management.azure.com.")
    var resource: String

    @OptionGroup var identity: ManagedIdentityOptions

    @Flag(name: .customLong("force-refresh"), help: "Ask the source even when a cached token is valid.")
    var forceRefresh = false

    @OptionGroup var cache: CacheFileOptions

    @OptionGroup var network: NetworkOptions

    @Option(help: "Output format: text or json.")
    var output: OutputFormat = .text

    func run() async throws {
        do {
            let configuration = MSALManagedIdentityConfig(identity: identity.identity)
            configuration.cacheConfig = try cache.config()
            configuration.transport = try network.transport()
            let application = try MSALManagedIdentityApplication(configuration: configuration)
            let parameters = MSALManagedIdentityParameters(resource: resource)
            parameters.forceRefresh = forceRefresh
            TokenOutput.write(try await application.acquireToken(with: parameters), format: output)
        } catch {
            throw CommandOutput.fail(error, format: output)
        }
    }
}

/// `msal managed-identity source`
struct ManagedIdentitySourceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "source", abstract: "Print which managed-identity source the environment names (nothing is sent).")

    @Option(help: "Output format: text or json.")
    var output: OutputFormat = .text

    func run() async throws {
        let application = try MSALManagedIdentityApplication(configuration: MSALManagedIdentityConfig(identity: .systemAssigned))
        switch output {
        case .text: print(application.source)
        case .json: print(#"{"source":"\#(application.source.rawValue)"}"#)
        }
    }
}
