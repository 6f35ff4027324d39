import ArgumentParser
import Foundation
import MSAL
import MSALJOSE
import MSALJSON

/// `msal jwt verify TOKEN --jwks FILE|URL …`: verifies signature and claims.
struct JWTVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify a JWT's signature against a JWK set and validate its claims.",
        discussion: """
            Exit status 0 when the token is valid, 1 when it is rejected (with --output json, an object \
            whose "error" member holds code, internal_code and message). exp, nbf and iat are always \
            checked; iss, aud/azp and nonce when their options are given.
            """
    )

    @Argument(help: "The token, or - to read it from standard input.")
    var token: String

    @Option(help: "JWK set: a file path or an https:// URL.")
    var jwks: String

    @Option(help: "Expected issuer (exact; {tenantid} is replaced by the token's tid).")
    var issuer: String?

    @Option(help: "Expected audience: the client id.")
    var audience: String?

    @Option(help: "Expected nonce.")
    var nonce: String?

    @Option(help: "Clock skew tolerated for exp, nbf and iat, in seconds.")
    var skew: Double = 300

    @Option(help: "Evaluate times at this instant (seconds since 1970) instead of now.")
    var now: Double?

    @OptionGroup var network: NetworkOptions

    @Option(help: "Output format: text or json.")
    var output: OutputFormat = .text

    func validate() throws {
        guard skew >= 0, skew <= 86_400 else {
            throw ValidationError("--skew must be between 0 and 86400 seconds")
        }
        if let now, !now.isFinite || abs(now) > 1e12 {
            throw ValidationError("--now must be seconds since 1970")
        }
    }

    func run() async throws {
        let idToken: IDToken
        do {
            let text = try InputReader.token(token)
            let keySet = try JSONWebKeySet(json: try await InputReader.keySet(jwks, transport: try network.transport()))
            var options = IDTokenValidationOptions(issuer: issuer ?? "", clientID: audience ?? "", nonce: nonce, clockSkew: skew)
            options.checksIssuer = issuer != nil
            options.checksAudience = audience != nil
            let instant = now.map { Date(timeIntervalSince1970: $0) } ?? Date()
            idToken = try IDTokenValidator(keySet: keySet, options: options).validate(text, now: instant)
        } catch {
            throw CommandOutput.fail(error, format: output, extra: [JSONMember(name: "valid", value: .bool(false))])
        }
        let checks: [(String, Bool)] = [
            ("signature", true), ("iss", issuer != nil), ("aud", audience != nil),
            ("exp", true), ("nbf", true), ("iat", true), ("nonce", nonce != nil),
        ]
        let jwt = idToken.jwt
        switch output {
        case .json:
            CommandOutput.writeJSON(
                .object([
                    "valid": .bool(true),
                    "checked": .array(checks.filter(\.1).map { .string($0.0) }),
                    "not_checked": .array(checks.filter { !$0.1 }.map { .string($0.0) }),
                    "header": JSON(jwt.header.root),
                    "claims": JSON(jwt.claims.root),
                ]))
        case .text:
            let checked = checks.filter(\.1).map(\.0).joined(separator: ", ")
            let skipped = checks.filter { !$0.1 }.map(\.0)
            var lines = [
                "VALID: \(jwt.algorithmName ?? "?") signature verified with key \"\(jwt.keyID ?? "-")\".",
                "Checked: \(checked)." + (skipped.isEmpty ? "" : " Not checked (no option given): \(skipped.joined(separator: ", ")))."),
                "  iss: \(idToken.issuer ?? "-")",
                "  aud: \(idToken.audience.joined(separator: ", "))",
                "  sub: \(idToken.subject ?? "-")",
                "  exp: \(CommandOutput.epochDescription(idToken.expiresAt))",
                "  iat: \(CommandOutput.epochDescription(idToken.issuedAt))",
            ]
            if let username = idToken.username { lines.append("  user: \(username)") }
            if let tid = idToken.tenantID { lines.append("  tid: \(tid)") }
            lines.append("Claims:")
            lines.append(jwt.claimsJSON)
            CommandOutput.write(lines.joined(separator: "\n"))
        }
    }
}
