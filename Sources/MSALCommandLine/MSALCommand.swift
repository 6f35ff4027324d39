import ArgumentParser

/// `msal`: the swift-msal command-line tool.
@main
struct MSALCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "msal",
        abstract: "swift-msal: Microsoft identity platform authentication for Linux.",
        subcommands: [
            LoginCommand.self, TokenCommand.self, LogoutCommand.self, AccountsCommand.self, AppTokenCommand.self,
            ManagedIdentityCommand.self, AuthorityCommand.self,
            CacheCommand.self,
            JWTCommand.self,
            EmulatorCommand.self, DemoCommand.self,
        ]
    )
}

/// `msal jwt …`
struct JWTCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jwt",
        abstract: "Decode and verify JSON Web Tokens.",
        subcommands: [JWTDecodeCommand.self, JWTVerifyCommand.self]
    )
}

/// Output formats shared by the verbs.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text
    case json
}
