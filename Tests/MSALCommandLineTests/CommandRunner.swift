import Foundation
import MSALSupport

/// Runs the built `msal` executable, as a user would.
struct CommandRunner {
    struct Result {
        var status: Int32
        var standardOutput: String
        var standardError: String

        /// Standard output parsed as a JSON object.
        func json() throws -> [String: Any] {
            let object = try JSONSerialization.jsonObject(with: Data(standardOutput.utf8))
            guard let dictionary = object as? [String: Any] else {
                throw CocoaError(.coderReadCorrupt)
            }
            return dictionary
        }
    }

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let fixtures = packageRoot.appendingPathComponent("Fixtures")

    /// The `msal` binary next to the test bundle (SwiftPM builds it because the test target depends on it).
    static let executable: URL = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("msal"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("msal"),
            Bundle.main.bundleURL.appendingPathComponent("msal"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }()

    /// Runs `msal arguments…` (or `executable`'s) with optional standard input; kills it after `timeout` seconds
    /// (120 by default: far beyond any command's need, as in a full parallel run on two cores a command
    /// talking to the test process's emulator once took over 30 s).
    ///
    /// The process is started and waited for on a Dispatch thread, so the wait does not hold one of
    /// the few cooperative threads every other test runs on: with two cores, two tests waiting for
    /// a process each would stall the whole parallel run (and any server a test is talking to).
    /// `environment` entries are added to (or replace those of) the test process's environment.
    static func run(
        _ arguments: [String], standardInput: Data? = nil, timeout: TimeInterval = 120, environment: [String: String] = [:],
        executable: URL = executable
    ) async throws -> Result {
        try await offCooperativePool {
            try runBlocking(arguments, standardInput: standardInput, timeout: timeout, environment: environment, executable: executable)
        }
    }

    /// `MSALStressWorker`, next to `msal` (the test target depends on it), for multi-process tests.
    static let stressWorker = executable.deletingLastPathComponent().appendingPathComponent("MSALStressWorker")

    /// Runs `body`, which blocks on a process, on a Dispatch thread and awaits its result.
    static func offCooperativePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            DispatchQueue.global().async { continuation.resume(with: Swift.Result { try body() }) }
        }
    }

    /// `ChildProcess`, not Foundation's `Process`: with the many descriptors a parallel run holds
    /// open, `Process.run()` crashed the test process (see `ChildProcess`).
    private static func runBlocking(
        _ arguments: [String], standardInput: Data?, timeout: TimeInterval, environment: [String: String], executable: URL
    ) throws -> Result {
        let outcome = try ChildProcess.run(
            executable.path, arguments,
            environment: environment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(environment) { _, new in new },
            standardInput: standardInput.map { Array($0) } ?? [], timeout: timeout)
        return Result(
            status: outcome.status,
            standardOutput: String(decoding: outcome.standardOutput, as: UTF8.self),
            standardError: String(decoding: outcome.standardError, as: UTF8.self))
    }

    static func fixtureText(_ path: String) throws -> String {
        try String(contentsOf: fixtures.appendingPathComponent(path), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
