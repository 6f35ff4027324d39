import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A real browser for end-to-end sign-in: headless Chromium started through
/// `scripts/headless-chromium.sh`, one run per browser command the SDK launches.
///
/// Each run has its own process group (the script appends its id to ``pidFile``) and a time limit
/// after which the script's `timeout` ends the whole group. ``stop()`` ends any group still running,
/// so a test never leaves Chromium behind, whatever happened.
final class HeadlessChromium: Sendable {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `scripts/headless-chromium.sh`.
    static let script = packageRoot.appendingPathComponent("scripts/headless-chromium.sh")

    /// Chromium on `PATH`, as the script looks for it.
    static let executable: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for name in ["chromium", "chromium-browser"] {
            for directory in path.split(separator: ":") where directory.hasPrefix("/") {
                let candidate = "\(directory)/\(name)"
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return nil
    }()

    /// Whether this run is CI's (`CI=true`), where a missing Chromium is a failure, not a skip.
    static let isCI = ProcessInfo.processInfo.environment["CI"]?.lowercased() == "true"

    /// Whether the Chromium test runs: Chromium is installed, or this is CI (where the test then fails and says why).
    static let shouldRun = executable != nil || isCI

    /// Why the test is skipped outside CI.
    static let missingReason: Comment = "Chromium is not installed: bash scripts/setup.sh installs it (in CI its absence fails the test)"

    /// A directory of this run: the process group ids and the final page's DOM.
    let directory: URL
    /// Every process group the script started, one id a line.
    var pidFile: URL { directory.appendingPathComponent("pgids") }
    /// The DOM of the page Chromium ended on; written once Chromium has exited.
    var domFile: URL { directory.appendingPathComponent("dom.html") }
    /// Seconds after which the script ends Chromium.
    let timeLimit: Int

    init(timeLimit: Int = 90) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-chromium-test-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.timeLimit = timeLimit
    }

    /// The browser command for `MSALWebviewParameters(browserCommand:)` (the URL is appended).
    var command: [String] {
        [Self.script.path, "--pid-file", pidFile.path, "--dom", domFile.path, "--time-limit", String(timeLimit)]
    }

    /// The process groups recorded so far.
    var groups: [pid_t] {
        let text = (try? String(contentsOf: pidFile, encoding: .utf8)) ?? ""
        return text.split(whereSeparator: \.isNewline).compactMap { pid_t($0) }
    }

    /// The final page's DOM once Chromium has exited, waiting for it at most `seconds` (real time:
    /// Chromium writes it when it exits). `nil` when it did not come.
    func finalDOM(within seconds: Double) async -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let dom = try? String(contentsOf: domFile, encoding: .utf8) { return dom }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// Kills every recorded group whose leader (the script's `timeout`) still runs, then removes the directory.
    ///
    /// A group is only signalled while its leader lives, so a process group id reused by the system
    /// after Chromium exited is never hit.
    func stop() {
        for group in groups where Self.isOurLeader(group) {
            kill(-group, SIGKILL)
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Whether `pid` is alive and is the `timeout` the script started.
    private static func isOurLeader(_ pid: pid_t) -> Bool {
        guard let cmdline = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
        let arguments = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        return arguments.first.map { $0.hasSuffix("timeout") } == true
            && arguments.contains { $0.hasSuffix("chromium") || $0.hasSuffix("chromium-browser") }
    }
}
