import ArgumentParser
import MSAL
import MSALJOSE
import MSALJSON

/// `msal jwt decode TOKEN`: shows header and claims without verifying anything.
struct JWTDecodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Show a JWT's header and claims. Nothing is verified.",
        discussion:
            "The output is marked UNVERIFIED: the signature and the claims were not checked, so nothing in it may be trusted. Use `msal jwt verify` for that."
    )

    @Argument(help: "The token, or - to read it from standard input.")
    var token: String

    @Option(help: "Output format: text or json.")
    var output: OutputFormat = .text

    func run() async throws {
        let jwt: JWT
        do {
            jwt = try JWT.decodeUnverified(try InputReader.token(token))
        } catch {
            throw CommandOutput.fail(error, format: output, extra: [JSONMember(name: "verified", value: .bool(false))])
        }
        switch output {
        case .json:
            CommandOutput.writeJSON(
                .object([
                    "verified": .bool(false),
                    "warning": .string("UNVERIFIED: signature and claims were not checked"),
                    "header": JSON(jwt.header.root),
                    "claims": JSON(jwt.claims.root),
                ]))
        case .text:
            CommandOutput.write(
                """
                UNVERIFIED: decoded only; the signature and claims were NOT checked.
                Header:
                \(jwt.headerJSON)
                Claims:
                \(jwt.claimsJSON)
                """)
        }
    }
}
