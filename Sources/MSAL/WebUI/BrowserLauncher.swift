import Foundation
import MSALSupport

/// Starts browser launcher processes with `posix_spawn` (``ChildProcess``), never through a shell.
///
/// A launcher counts as started when its process runs and has not exited with a failure within
/// ``launchCheck``: swift-msal does not wait for the browser itself to exit. One that is still
/// running then is reaped by a thread of its own when it exits.
///
/// Not Foundation's `Process`: in a process with more than about 1,360 open descriptors (a busy
/// service) its `run()` can crash, and it gives the child the spawning thread's signal mask, which
/// on Dispatch and cooperative threads blocks SIGTERM, SIGINT and SIGHUP (swift-corelibs-foundation
/// issue #4772): a browser started that way ignored `kill` and the terminal's hang-up for good. The
/// child here gets an empty mask, default signal actions and none of this process's descriptors.
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
    /// - Throws: `browserLaunchFailed`, carrying `url` in the message and in ``MSALFailure/authorizationURL``,
    ///   when none launches. `notes` are earlier failures to report with it (such as an unparsable `$BROWSER` entry).
    ///   `invalidParameter` when `url` is not an `http` or `https` URL (nothing is launched).
    package func launchFirst(of commands: [[String]], url: URL, notes: [String] = []) async throws(MSALFailure) {
        guard Self.isLaunchable(url) else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
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
        var error = MSALFailure(
            .internal, internalCode: .browserLaunchFailed,
            message: "No browser could be launched (\(failures.joined(separator: "; "))). "
                + "Open this URL in a browser to sign in: \(url.absoluteString)")
        error.authorizationURL = url
        throw error
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
        let child: ChildProcess
        do {
            child = try ChildProcess.start(
                executable.path, Array(command.dropFirst()), environment: environment, standardOutput: .discard, standardError: .discard)
        } catch {
            throw LaunchFailure(reason: "cannot start (\(error.description))")
        }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: launchCheck)
        while child.isRunning {
            if clock.now >= deadline || Task.isCancelled {
                // Still running: the launcher is (or became) the browser.
                Thread.detachNewThread { _ = child.finish() }
                return
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        let outcome = child.finish()
        if let signal = outcome.signal {
            throw LaunchFailure(reason: "killed by signal \(signal)")
        }
        if outcome.exitCode != 0 {
            throw LaunchFailure(reason: "exited with status \(outcome.status)")
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
