import Foundation
import MSALSupport

/// Runs the MSAL for Python scripts of `Tests/Interop/msal_python/` with the interpreter of the
/// virtual environment that `scripts/setup.sh` creates at `.build/interop-venv` (MSAL for Python
/// pinned there). The JSON each script reads and prints is described in
/// `Tests/Interop/msal_python/README.md`.
///
/// A missing interpreter is a test failure, never a skip: CI runs `scripts/setup.sh` before the
/// tests, and a developer who has not is told to.
enum PythonMSAL {
    /// What a script printed and how it ended.
    struct Output: Sendable {
        var status: Int32
        var standardOutput: Data
        var standardError: String

        /// Standard output parsed as a JSON object.
        func jsonObject() throws -> [String: Any] {
            guard let object = try JSONSerialization.jsonObject(with: standardOutput) as? [String: Any] else {
                throw Failure("the script's standard output is not a JSON object:\n\(String(decoding: standardOutput, as: UTF8.self))")
            }
            return object
        }
    }

    /// Why a script could not be run or did not succeed; the description says what to do.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The package root, found from this file's path (`Tests/MSALTests/Support/PythonMSAL.swift`).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // MSALTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// `Tests/Interop/msal_python/`.
    static let scriptsDirectory = packageRoot.appendingPathComponent("Tests/Interop/msal_python")

    /// `.build/interop-venv/bin/python` under the package root.
    static let venvPython = packageRoot.appendingPathComponent(".build/interop-venv/bin/python")

    /// The interpreter to use: `MSAL_INTEROP_PYTHON` when set (an interpreter with `msal` installed),
    /// else the interop venv's. Throws a `Failure` naming `scripts/setup.sh` when there is none.
    static func interpreter(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        venvPython: URL = PythonMSAL.venvPython
    ) throws -> URL {
        if let override = environment["MSAL_INTEROP_PYTHON"], !override.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: override) else {
                throw Failure("MSAL_INTEROP_PYTHON=\(override) is not an executable file")
            }
            return URL(fileURLWithPath: override)
        }
        guard FileManager.default.isExecutableFile(atPath: venvPython.path) else {
            let advice =
                environment["CI"] == "true"
                ? "CI must run `bash scripts/setup.sh` before the tests (the README test command, which .ci/run runs, does)."
                : "Run `bash scripts/setup.sh` from the package root once; it installs the pinned MSAL for Python there."
            throw Failure(
                """
                MSAL for Python is not installed: no interpreter at \(venvPython.path). \(advice) \
                The interoperability tests fail rather than skip without it.
                """)
        }
        return venvPython
    }

    /// Runs `python scriptsDirectory/script arguments…`, standard input empty, and waits for it,
    /// at most `timeout` (then the process is killed and a `Failure` thrown).
    static func run(_ script: String, _ arguments: [String], timeout: Duration = .seconds(120)) async throws -> Output {
        let python = try interpreter()
        let scriptURL = scriptsDirectory.appendingPathComponent(script)
        guard FileManager.default.fileExists(atPath: scriptURL.path) else {
            throw Failure("no script at \(scriptURL.path)")
        }
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("msal-python-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONDONTWRITEBYTECODE"] = "1"  // no __pycache__ in the source tree
        environment["PYTHONIOENCODING"] = "utf-8"
        // `ChildProcess` on a Dispatch thread, not Foundation's `Process`: with the many descriptors
        // a parallel run holds open, `Process.run()` crashed the test process (see `ChildProcess`).
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let arguments = [scriptURL.path] + arguments
        let childEnvironment = environment
        let outcome = try await StressWorker.offCooperativePool { () -> Result<ChildProcess.Outcome, any Error> in
            Result {
                try ChildProcess.run(
                    python.path, arguments, environment: childEnvironment, currentDirectory: scratch.path, standardInput: [],
                    timeout: seconds)
            }
        }.get()
        let output = Output(
            status: outcome.status, standardOutput: Data(outcome.standardOutput),
            standardError: String(decoding: outcome.standardError, as: UTF8.self))
        if outcome.timedOut {
            throw Failure("\(script) did not finish within \(timeout); standard error:\n\(output.standardError)")
        }
        return output
    }

    /// Runs a script and returns its output; throws a `Failure` with its standard error unless it exited 0.
    static func runChecked(_ script: String, _ arguments: [String], timeout: Duration = .seconds(120)) async throws -> Output {
        let output = try await run(script, arguments, timeout: timeout)
        guard output.status == 0 else {
            throw Failure(
                """
                \(script) \(arguments.joined(separator: " ")) exited with status \(output.status); standard error:
                \(output.standardError)
                """)
        }
        return output
    }
}
