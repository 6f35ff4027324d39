import Foundation
import Glibc
import MSALEmulator
import MSALSupport
import Testing

/// `msal app-token --secret-file -` (and `--private-key-password-file -`) with a terminal as standard
/// input (issue 39, finding 3): a prompt on standard error, the secret not echoed, and the terminal's
/// echo back after a line, after a signal at the prompt, and across a stop (Ctrl-Z).
///
/// The terminal is a pseudo-terminal whose slave end is the real `msal` binary's standard input and
/// standard error; the test types into the master end and reads there what the terminal shows.
@Suite("msal app-token: a secret typed at a terminal is not echoed, and echo comes back")
struct TerminalSecretTests {
    /// What a run at the pseudo-terminal showed and left.
    struct Session: Sendable {
        /// How `msal` ended, with its standard output (a pipe).
        var outcome: ChildProcess.Outcome
        /// Everything the terminal showed (the master end's output): the prompt and any echo.
        var transcript: String
        /// Whether the terminal echoed input while `msal` waited at the prompt.
        var echoAtPrompt: Bool
        /// Whether the terminal echoes input after `msal` ended.
        var echoAfter: Bool
    }

    /// A pseudo-terminal pair, opened with `posix_openpt`, `grantpt`, `unlockpt` and `ptsname_r`
    /// (no `-lutil` for `openpty`). Swift's Glibc module does not declare these X/Open calls, so
    /// they are looked up in the C library at run time, as `ChildProcess` looks up its extensions.
    final class PseudoTerminal {
        struct Failure: Error, CustomStringConvertible {
            let description: String
        }

        private typealias OpenPT = @convention(c) (Int32) -> Int32
        private typealias GrantPT = @convention(c) (Int32) -> Int32
        private typealias PTSName = @convention(c) (Int32, UnsafeMutablePointer<CChar>, Int) -> Int32

        let master: Int32
        let slave: Int32
        private(set) var transcript: [UInt8] = []

        init() throws {
            func symbol<T>(_ name: String, as type: T.Type) throws -> T {
                guard let handle = dlopen(nil, RTLD_NOW), let pointer = dlsym(handle, name) else {
                    throw Failure(description: "the C library has no \(name)")
                }
                return unsafeBitCast(pointer, to: type)
            }
            let openpt = try symbol("posix_openpt", as: OpenPT.self)
            let grantpt = try symbol("grantpt", as: GrantPT.self)
            let unlockpt = try symbol("unlockpt", as: GrantPT.self)
            let ptsname = try symbol("ptsname_r", as: PTSName.self)
            master = openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)
            var name = [CChar](repeating: 0, count: 128)
            guard master >= 0, grantpt(master) == 0, unlockpt(master) == 0, ptsname(master, &name, name.count) == 0 else {
                throw Failure(description: "cannot open a pseudo-terminal: \(String(cString: strerror(errno)))")
            }
            let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            slave = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
            guard slave >= 0 else { throw Failure(description: "cannot open \(path)") }
            _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        }

        deinit {
            close(master)
            close(slave)
        }

        /// Whether the terminal echoes what is typed.
        var echoes: Bool {
            var settings = termios()
            _ = tcgetattr(slave, &settings)
            return settings.c_lflag & tcflag_t(ECHO) != 0
        }

        /// Types `text` at the terminal.
        func type(_ text: String) {
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
        }

        /// Reads what the terminal shows until `stop` is true of all of it or `seconds` pass.
        @discardableResult
        func read(seconds: Double, until stop: (String) -> Bool = { _ in false }) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while Date() < deadline {
                if stop(text) { return true }
                var entry = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                guard poll(&entry, 1, 50) > 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
                if count > 0 { transcript += buffer[..<count] }
            }
            return stop(text)
        }

        /// Reads until the transcript holds `prompt` `times` times; false at the time limit.
        func waitForPrompt(_ prompt: String, times: Int = 1) -> Bool {
            read(seconds: 60) { $0.components(separatedBy: prompt).count > times }
        }

        var text: String { String(decoding: transcript, as: UTF8.self) }
    }

    /// Runs `msal app-token arguments…` with the pseudo-terminal as standard input and standard
    /// error, and `interact` with the terminal and the running child once the prompt shows; returns
    /// the session and what `interact` returned (`nil` if the prompt never showed).
    static func atTerminal<Seen: Sendable>(
        _ setup: AppTokenCommandTests.Setup, _ arguments: [String], prompt: String,
        interact: @escaping @Sendable (PseudoTerminal, ChildProcess) -> Seen
    ) async throws -> (session: Session, seen: Seen?) {
        let authority = setup.emulator.authorityURL(tenant: MSALEmulator.Configuration.sampleContosoTenantID).absoluteString
        let fullArguments =
            [
                "app-token", "--client-id", AppTokenCommandTests.clientID, "--authority", authority, "--allow-http-loopback",
                "--cache", setup.path("cache.json"), "--output", "json",
            ] + arguments
        return try await CommandRunner.offCooperativePool {
            let terminal = try PseudoTerminal()
            let child = try ChildProcess.start(
                CommandRunner.executable.path, fullArguments, inputDescriptor: terminal.slave, standardError: .descriptor(terminal.slave),
                timeout: 120)
            let prompted = terminal.waitForPrompt(prompt)
            let echoAtPrompt = terminal.echoes
            var seen: Seen?
            if prompted { seen = interact(terminal, child) } else { child.kill() }
            let outcome = child.finish()
            terminal.read(seconds: 0.2)
            return (Session(outcome: outcome, transcript: terminal.text, echoAtPrompt: echoAtPrompt, echoAfter: terminal.echoes), seen)
        }
    }

    @Test("--secret-file - at a terminal: the prompt on standard error, no echo, the exact secret sent, echo restored")
    func secretTyped() async throws {
        try await AppTokenCommandTests.Setup.with { setup in
            let (session, _) = try await Self.atTerminal(setup, ["--secret-file", "-"], prompt: "Client secret: ") { terminal, _ in
                terminal.type(AppTokenCommandTests.secret + "\n")
            }
            #expect(session.transcript.hasPrefix("Client secret: "), "\(session.transcript)")
            #expect(!session.transcript.contains(AppTokenCommandTests.secret), "the secret was echoed: \(session.transcript)")
            #expect(!session.echoAtPrompt, "echo was on at the prompt")
            #expect(session.echoAfter, "echo was not restored")
            let output = String(decoding: session.outcome.standardOutput, as: UTF8.self)
            #expect(session.outcome.status == 0, "\(output) \(session.transcript)")
            // The emulator accepts only the exact secret (a changed one is invalid_client).
            let result = CommandRunner.Result(status: session.outcome.status, standardOutput: output, standardError: "")
            #expect(try result.json()["token_source"] as? String == "identity_provider")
            #expect(setup.grants == 1)
        }
    }

    @Test("--private-key-password-file - at a terminal: the password prompt, no echo, the encrypted key opened, echo restored")
    func passwordTyped() async throws {
        // `scripts/setup.sh` installs the openssl command; without it this test fails, never skips.
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "/usr/bin/openssl is missing: run `bash scripts/setup.sh`")
        try await AppTokenCommandTests.Setup.with { setup in
            let password = "k3y pass~phrase"
            let openssl = [
                "pkcs8", "-topk8", "-v2", "aes-256-cbc", "-in", setup.path("key.pem"), "-out", setup.path("encrypted.pem"),
                "-passout", "pass:\(password)",
            ]
            let made = try await CommandRunner.offCooperativePool { try ChildProcess.run("/usr/bin/openssl", openssl, timeout: 60) }
            #expect(made.status == 0, "\(String(decoding: made.standardError, as: UTF8.self))")
            let (session, _) = try await Self.atTerminal(
                setup,
                [
                    "--certificate", setup.path("cert.pem"), "--private-key", setup.path("encrypted.pem"), "--private-key-password-file",
                    "-",
                ],
                prompt: "Private key password: "
            ) { terminal, _ in
                terminal.type(password + "\n")
            }
            #expect(session.transcript.hasPrefix("Private key password: "), "\(session.transcript)")
            #expect(!session.transcript.contains(password), "the password was echoed: \(session.transcript)")
            #expect(!session.echoAtPrompt)
            #expect(session.echoAfter, "echo was not restored")
            #expect(session.outcome.status == 0, "\(String(decoding: session.outcome.standardOutput, as: UTF8.self))")
            #expect(setup.grants == 1)
        }
    }

    @Test(
        "A signal at the prompt ends msal as the signal does, and the terminal echoes again", arguments: [SIGTERM, SIGINT, SIGHUP, SIGQUIT])
    func signalAtPrompt(signal: Int32) async throws {
        try await AppTokenCommandTests.Setup.with { setup in
            let (session, _) = try await Self.atTerminal(setup, ["--secret-file", "-"], prompt: "Client secret: ") { terminal, child in
                terminal.type("half-typ")
                terminal.read(seconds: 0.2)
                child.kill(signal)
            }
            #expect(session.transcript.hasPrefix("Client secret: "), "\(session.transcript)")
            #expect(!session.echoAtPrompt)
            #expect(session.outcome.signal == signal, "exit \(String(describing: session.outcome.exitCode)), \(session.transcript)")
            #expect(!session.outcome.timedOut)
            #expect(session.echoAfter, "echo was not restored after signal \(signal)")
            #expect(!session.transcript.contains("half-typ"))
            #expect(setup.grants == 0)
        }
    }

    @Test("End of input (Ctrl-D) at the prompt: the empty secret is refused, and the terminal echoes again")
    func endOfInputAtPrompt() async throws {
        try await AppTokenCommandTests.Setup.with { setup in
            let (session, _) = try await Self.atTerminal(setup, ["--secret-file", "-"], prompt: "Client secret: ") { terminal, _ in
                terminal.type("\u{04}")
            }
            #expect(!session.echoAtPrompt)
            #expect(session.outcome.exitCode == 1, "\(session.transcript)")
            let output = String(decoding: session.outcome.standardOutput, as: UTF8.self)
            let result = CommandRunner.Result(status: session.outcome.status, standardOutput: output, standardError: "")
            #expect((try result.json()["error"] as? [String: Any])?["internal_code"] as? Int == -53001, "\(output)")
            #expect(session.echoAfter, "echo was not restored at end of input")
            #expect(setup.grants == 0)
        }
    }

    @Test("Stopped at the prompt (SIGTSTP): echo is back while stopped; continued, echo is off and the prompt shows again")
    func stopAtPrompt() async throws {
        try await AppTokenCommandTests.Setup.with { setup in
            let (session, seen) = try await Self.atTerminal(setup, ["--secret-file", "-"], prompt: "Client secret: ") { terminal, child in
                child.kill(SIGTSTP)
                let deadline = Date().addingTimeInterval(30)
                var state = ""
                while Date() < deadline {
                    let stat = (try? String(contentsOfFile: "/proc/\(child.processIdentifier)/stat", encoding: .utf8)) ?? ""
                    state = stat.split(separator: ")").last?.split(separator: " ").first.map(String.init) ?? ""
                    if state == "T" { break }
                    usleep(10_000)
                }
                let echo = terminal.echoes
                child.kill(SIGCONT)
                if terminal.waitForPrompt("Client secret: ", times: 2) { terminal.type(AppTokenCommandTests.secret + "\n") }
                return (echo: echo, state: state)
            }
            let whileStopped = try #require(seen, "no prompt: \(session.transcript)")
            #expect(whileStopped.state == "T", "msal did not stop")
            #expect(whileStopped.echo, "echo was off while msal was stopped")
            #expect(session.transcript.components(separatedBy: "Client secret: ").count == 3, "\(session.transcript)")
            #expect(!session.transcript.contains(AppTokenCommandTests.secret))
            #expect(session.outcome.status == 0, "\(String(decoding: session.outcome.standardOutput, as: UTF8.self))")
            #expect(session.echoAfter)
            #expect(setup.grants == 1)
        }
    }
}
