import Foundation
import MSALSupport

/// Starts browser launcher processes with Foundation's `Process`, never through a shell.
///
/// A launcher counts as started when its process runs and has not exited with a failure within
/// ``launchCheck``: swift-msal does not wait for the browser itself to exit.
package struct BrowserLauncher: Sendable {
    /// The environment the launcher runs with and whose `PATH` finds the command.
    package var environment: [String: String]
    /// How long a launcher is watched for an early failure before it counts as started.
    package var launchCheck: Duration

    /// The search path used when the environment has no `PATH`.
    package static let defaultSearchPath = "/usr/local/bin:/usr/bin:/bin"

    /// Creates a launcher.
    package init(environment: [String: String], launchCheck: Duration = .milliseconds(500)) {
        self.environment = environment
        self.launchCheck = launchCheck
    }

    /// Starts the first of `commands` (complete argument vectors) that launches, trying the next on failure.
    ///
    /// - Throws: `browserLaunchFailed`, carrying `url` in the message and in ``MSALError/authorizationURL``,
    ///   when none launches. `notes` are earlier failures to report with it (such as an unparsable `$BROWSER` entry).
    ///   `invalidParameter` when `url` is not an `http` or `https` URL (nothing is launched).
    package func launchFirst(of commands: [[String]], url: URL, notes: [String] = []) async throws(MSALError) {
        guard Self.isLaunchable(url) else {
            throw MSALError(
                .internal, internalCode: .invalidParameter,
                message: "Only http and https URLs are opened in a browser.")
        }
        var failures = notes
        for command in commands {
            do throws(LaunchFailure) {
                try await launch(command)
                return
            } catch {
                failures.append("\(command.first ?? "(empty command)"): \(error.reason)")
            }
        }
        if commands.isEmpty, failures.isEmpty {
            failures.append("no browser command")
        }
        throw Self.launchFailedError(url: url, reasons: failures)
    }

    /// The error for a URL no browser could be launched for.
    package static func launchFailedError(url: URL, reasons: [String]) -> MSALError {
        var error = MSALError(
            .internal, internalCode: .browserLaunchFailed,
            message: "No browser could be launched (\(reasons.joined(separator: "; "))). "
                + "Open this URL in a browser to sign in: \(url.absoluteString)")
        error.authorizationURL = url
        return error
    }

    /// Whether `url` may be handed to a launcher: only `https` and `http` URLs are.
    package static func isLaunchable(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased()
        return (scheme == "https" || scheme == "http") && url.host != nil
    }

    /// Why one command did not launch.
    package struct LaunchFailure: Error {
        /// A short reason, for the error message.
        package var reason: String
    }

    /// Runs `command` and watches it for ``launchCheck``.
    private func launch(_ command: [String]) async throws(LaunchFailure) {
        guard let name = command.first, !name.isEmpty else {
            throw LaunchFailure(reason: "empty command")
        }
        guard let executable = resolve(name) else {
            throw LaunchFailure(reason: "not found")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = Array(command.dropFirst())
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let exit = ProcessExitSignal()
        process.terminationHandler = { process in
            exit.exited(status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal)
        }
        do {
            try await process.runWithEmptySignalMask()
        } catch {
            throw LaunchFailure(reason: "cannot start (\(error.localizedDescription))")
        }
        guard let status = await exit.wait(atMost: launchCheck) else {
            return  // Still running: the launcher is (or became) the browser.
        }
        if status.signaled {
            throw LaunchFailure(reason: "killed by signal \(status.code)")
        }
        if status.code != 0 {
            throw LaunchFailure(reason: "exited with status \(status.code)")
        }
    }

    /// The executable for `name`: a path when it has a slash, else the first executable file on `PATH`.
    private func resolve(_ name: String) -> URL? {
        if name.contains("/") {
            return Self.isExecutableFile(name) ? URL(fileURLWithPath: name) : nil
        }
        let searchPath = environment["PATH"] ?? Self.defaultSearchPath
        for directory in searchPath.split(separator: ":", omittingEmptySubsequences: true) {
            // A relative entry would search the working directory; only absolute directories are used.
            guard directory.hasPrefix("/") else { continue }
            let candidate = directory.hasSuffix("/") ? "\(directory)\(name)" : "\(directory)/\(name)"
            if Self.isExecutableFile(candidate) {
                return URL(fileURLWithPath: candidate)
            }
        }
        return nil
    }

    private static func isExecutableFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return false
        }
        return FileManager.default.isExecutableFile(atPath: path)
    }
}

/// The exit of a launched process, awaited with a time limit.
private final class ProcessExitSignal: Sendable {
    struct Status: Sendable {
        var code: Int32
        var signaled: Bool
    }

    private struct State {
        var status: Status?
        var waiter: CheckedContinuation<Status?, Never>?
        var gaveUp = false
    }

    private let state = Mutex(State())

    /// Records the exit; called from `Process`'s termination handler.
    func exited(status code: Int32, signaled: Bool) {
        let status = Status(code: code, signaled: signaled)
        let waiter = state.withLock { state -> CheckedContinuation<Status?, Never>? in
            state.status = status
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: status)
    }

    /// The exit status if the process exits within `limit`, else `nil`.
    func wait(atMost limit: Duration) async -> Status? {
        await withTaskGroup(of: Status?.self) { group in
            group.addTask { await self.status() }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// The exit status once the process exits, or `nil` when the waiting task is canceled first.
    private func status() async -> Status? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Status?, Never>) in
                let immediate: Status?? = state.withLock { state in
                    if let status = state.status { return .some(status) }
                    if state.gaveUp { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let immediate {
                    continuation.resume(returning: immediate)
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Status?, Never>? in
                state.gaveUp = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
