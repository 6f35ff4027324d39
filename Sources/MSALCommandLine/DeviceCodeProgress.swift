import Foundation
import MSAL
import MSALJOSE
import MSALJSON
import MSALSupport

/// Shows the device code prompt on standard error, then (in text output) a progress indicator until
/// the sign-in ends.
///
/// Text output: the provider's message, and when it does not name both the verification page and the
/// code (a provider's own wording), a line that does. JSON output: one line, `{"device_code": {…}}`
/// with `verification_uri`, `user_code`, `expires_on` (seconds since 1970) and `message`, so a script
/// can show its own prompt; standard output keeps only the result.
enum DeviceCodeProgress {
    static func run(
        format: OutputFormat = .text, _ body: (@escaping @Sendable (MSALDeviceCodeInfo) -> Void) async throws -> MSALResult
    ) async throws -> MSALResult {
        let progress = ProgressTicker()
        defer { progress.stop() }
        return try await body { info in
            switch format {
            case .json:
                CommandOutput.writeJSONLine(prompt(info), toStandardError: true)
            case .text:
                CommandOutput.write(text(info), toStandardError: true)
                progress.start()
            }
        }
    }

    /// The text prompt for `info`.
    static func text(_ info: MSALDeviceCodeInfo) -> String {
        let uri = info.verificationURI.absoluteString
        if info.message.contains(uri), info.message.contains(info.userCode) {
            return info.message
        }
        return info.message + "\nOpen \(uri) and enter the code \(info.userCode)"
    }

    /// The JSON prompt for `info`.
    static func prompt(_ info: MSALDeviceCodeInfo) -> JSON {
        .object([
            JSONMember(
                name: "device_code",
                value: .object([
                    JSONMember(name: "verification_uri", value: .string(info.verificationURI.absoluteString)),
                    JSONMember(name: "user_code", value: .string(info.userCode)),
                    JSONMember(name: "expires_on", value: .integer(Int(info.expiresOn.timeIntervalSince1970))),
                    JSONMember(name: "message", value: .string(info.message)),
                ]))
        ])
    }
}

/// A line on standard error that grows while polling: a spinner on a terminal, a dot every five
/// seconds otherwise.
final class ProgressTicker: Sendable {
    private let task = LockedTask()

    func start() {
        let isTerminal = isatty(STDERR_FILENO) == 1
        task.replace(
            Task {
                let frames = ["|", "/", "-", "\\"]
                var tick = 0
                while !Task.isCancelled {
                    if isTerminal {
                        CommandOutput.writeRaw("\r\(frames[tick % frames.count]) waiting for the sign-in…")
                        try? await Task.sleep(nanoseconds: 250_000_000)
                    } else {
                        CommandOutput.writeRaw(tick == 0 ? "waiting for the sign-in" : ".")
                        try? await Task.sleep(nanoseconds: 5_000_000_000)
                    }
                    tick += 1
                }
            })
    }

    func stop() {
        if task.cancel() { CommandOutput.writeRaw("\n") }
    }
}

/// The ticker's task behind a lock.
final class LockedTask: Sendable {
    private let task = Mutex<Task<Void, Never>?>(nil)

    func replace(_ new: Task<Void, Never>) {
        task.withLock { current in
            current?.cancel()
            current = new
        }
    }

    /// Cancels the task; whether there was one.
    func cancel() -> Bool {
        task.withLock { current in
            guard let running = current else { return false }
            running.cancel()
            current = nil
            return true
        }
    }
}
