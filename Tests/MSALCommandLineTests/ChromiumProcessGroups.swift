import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `scripts/headless-chromium.sh` as the browser of `msal demo --browser`: the command line, and
/// the cleanup of every Chromium process group it started (their ids are in ``pidFile``).
final class ChromiumProcessGroups: Sendable {
    /// `scripts/headless-chromium.sh`.
    static let script = CommandRunner.packageRoot.appendingPathComponent("scripts/headless-chromium.sh")

    /// Whether Chromium is on `PATH`, where the script looks for it.
    static let isInstalled: Bool = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return ["chromium", "chromium-browser"].contains { name in
            path.split(separator: ":").contains { $0.hasPrefix("/") && FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }
        }
    }()

    /// CI (`CI=true`) runs the test even without Chromium, so that it fails and says why.
    static let shouldRun = isInstalled || ProcessInfo.processInfo.environment["CI"]?.lowercased() == "true"

    let directory: URL
    var pidFile: URL { directory.appendingPathComponent("pgids") }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-demo-chromium-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The `--browser` value: the script, its process group file and a 90-second limit per run (a
    /// bound for a misbehaving Chromium; a run takes a few seconds).
    var browserOption: String {
        "'\(Self.script.path)' --pid-file '\(pidFile.path)' --time-limit 90"
    }

    /// How many Chromium runs the script started.
    var runs: Int {
        ((try? String(contentsOf: pidFile, encoding: .utf8)) ?? "").split(whereSeparator: \.isNewline).count
    }

    /// Kills each recorded group whose leader (the script's `timeout` running Chromium) is still
    /// alive — never a reused id — and removes the directory.
    func stop() {
        let text = (try? String(contentsOf: pidFile, encoding: .utf8)) ?? ""
        for group in text.split(whereSeparator: \.isNewline).compactMap({ pid_t($0) }) {
            guard let cmdline = FileManager.default.contents(atPath: "/proc/\(group)/cmdline") else { continue }
            let arguments = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if arguments.first?.hasSuffix("timeout") == true,
                arguments.contains(where: { $0.hasSuffix("chromium") || $0.hasSuffix("chromium-browser") })
            {
                kill(-group, SIGKILL)
            }
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
