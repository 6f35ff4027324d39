import Foundation
import MSALEmulator
import Testing

/// Text credentials that are not UTF-8 (issue 39, finding 5): `msal app-token` refuses a secret
/// file, a private key's password file, an assertion file or standard input holding bytes that are
/// not UTF-8, with a typed error naming the byte offset (never the text), and sends nothing,
/// instead of sending the text with U+FFFD in place of those bytes.
@Suite("msal app-token: a secret, password or assertion that is not UTF-8 is refused, not changed")
struct SecretEncodingTests {
    /// The secret's first bytes, then two bytes that are never UTF-8.
    static let invalid = Array("cli~secret-".utf8) + [0xFF, 0xFE, 0x0A]

    /// The run's error object, after checking the exit status.
    static func error(_ result: CommandRunner.Result) throws -> [String: Any] {
        #expect(result.status == 1, "\(result.standardOutput) \(result.standardError)")
        return try #require(try result.json()["error"] as? [String: Any], "\(result.standardOutput)")
    }

    /// Checks the message says "not valid UTF-8" at offset 11 and quotes none of the secret.
    static func expectRefusal(_ error: [String: Any], code: Int, naming source: String) {
        #expect(error["internal_code"] as? Int == code, "\(error)")
        let message = error["message"] as? String ?? ""
        #expect(message.contains("not valid UTF-8"), "\(message)")
        #expect(message.contains("offset 11"), "\(message)")
        #expect(message.contains(source), "\(message)")
        #expect(!message.contains("cli~secret") && !message.contains("\u{FFFD}"), "the message quotes the secret: \(message)")
    }

    @Test("A secret file, and standard input, that are not UTF-8: invalidCredential, nothing sent")
    func secret() async throws {
        try await AppTokenCommandTests.Setup.with { setup in
            try Data(Self.invalid).write(to: setup.folder.appendingPathComponent("invalid.txt"))
            let file = try await setup.run(["--secret-file", setup.path("invalid.txt")])
            Self.expectRefusal(try Self.error(file), code: -53001, naming: "The secret file")
            let piped = try await setup.run(["--secret-file", "-"], standardInput: Data(Self.invalid))
            Self.expectRefusal(try Self.error(piped), code: -53001, naming: "Standard input")
            #expect(setup.grants == 0, "nothing reaches the token endpoint")
        }
    }

    @Test("A private key's password file, and standard input, that are not UTF-8: invalidCredential, nothing sent")
    func password() async throws {
        try await AppTokenCommandTests.Setup.with { setup in
            try Data(Self.invalid).write(to: setup.folder.appendingPathComponent("password.txt"))
            let file = try await setup.run([
                "--certificate", setup.path("both.pem"), "--private-key-password-file", setup.path("password.txt"),
            ])
            Self.expectRefusal(try Self.error(file), code: -53001, naming: "The password file")
            let piped = try await setup.run(
                ["--certificate", setup.path("both.pem"), "--private-key-password-file", "-"], standardInput: Data(Self.invalid))
            Self.expectRefusal(try Self.error(piped), code: -53001, naming: "Standard input")
            #expect(setup.grants == 0, "nothing reaches the token endpoint")
        }
    }

    @Test("An assertion file that is not UTF-8: clientAssertionFailed (as for a missing one), nothing sent")
    func assertion() async throws {
        try await AppTokenCommandTests.Setup.with { setup in
            try Data(Self.invalid).write(to: setup.folder.appendingPathComponent("assertion.jwt"))
            let result = try await setup.run(["--assertion-file", setup.path("assertion.jwt")])
            Self.expectRefusal(try Self.error(result), code: -53005, naming: "assertion.jwt")
            #expect(setup.grants == 0, "nothing reaches the token endpoint")
        }
    }
}
