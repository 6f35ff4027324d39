import Foundation
import Testing

@testable import MSAL

/// swift-msal processes and MSAL for Python processes using msal-extensions (as Azure CLI and
/// Azure Identity do) writing one cache file at the same time: swift-msal takes msal-extensions'
/// lock (`<cache>.lockfile`) for every change, so no read-modify-write of either side is lost.
@Suite("Cache file shared with msal-extensions: one lock, no lost update", .serialized)
struct ExtensionsLockInteropTests {
    @Test(
        "2 swift-msal processes × 40 and 2 msal-extensions processes × 20 new accounts on one file, interleaved: all 120 are there, no lock file left"
    )
    func concurrentWriters() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "msal-extensions-lock-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("token_cache.json").path
        // msal-extensions polls its lock file every 0.25 s and, after 5 s, writes without it: more
        // writers than this keep one of its processes waiting that long (even among themselves).
        let tags = (0..<2).map { "swift\($0)" } + (0..<2).map { "python\($0)" }
        func count(_ tag: String) -> Int { tag.hasPrefix("swift") ? 40 : 20 }

        let failures = try await withThrowingTaskGroup(of: String?.self) { group in
            for tag in tags {
                group.addTask {
                    if tag.hasPrefix("swift") {
                        // Python's interpreter takes a moment to start; the writes must overlap.
                        try await Task.sleep(for: .milliseconds(400))
                        // At an app's pace (250 ms between saves, msal-extensions' own polling
                        // interval): back to back, they would hold the lock nearly all the time
                        // (docs/cache-persistence.md), and msal-extensions, which polls every 0.25 s,
                        // gives up after 5 s and writes without the lock, losing updates by its own
                        // design. At 20 ms under AddressSanitizer, and at 100 ms in a full parallel
                        // run on a loaded machine (every save's fsync slower), a Python process did.
                        let outcome = try await StressWorker.run(
                            ["cache-save", path, String(count(tag)), tag, "250"], watchdogSeconds: 180)
                        return outcome.status == 0 ? nil : "\(tag): status \(outcome.status) \(outcome.standardError)"
                    }
                    let output = try await PythonMSAL.run("extensions_add.py", [path, String(count(tag)), tag], timeout: .seconds(180))
                    guard output.status == 0, let json = try? output.jsonObject() else {
                        return
                            "\(tag): status \(output.status) \(String(decoding: output.standardOutput, as: UTF8.self)) \(output.standardError)"
                    }
                    // The lock msal-extensions takes with portalocker installed: the lock file and a flock on it;
                    // and it never gave up waiting for it (it then writes regardless, and loses updates itself).
                    let warnings = json["lock_warnings"] as? [String] ?? ["(no lock_warnings)"]
                    return json["lock_implementation"] as? String == "msal_extensions.cache_lock" && warnings.isEmpty
                        ? nil : "\(tag): \(json)"
                }
            }
            var failures: [String] = []
            for try await failure in group {
                if let failure { failures.append(failure) }
            }
            return failures
        }
        #expect(failures.isEmpty, "\(failures)")

        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let secrets = Set(((document["RefreshToken"] as? [String: [String: Any]]) ?? [:]).values.compactMap { $0["secret"] as? String })
        let written = tags.flatMap { tag in (0..<count(tag)).map { "rt-\(tag)-\($0)" } }
        let missing = written.filter { !secrets.contains($0) }
        #expect(missing.isEmpty, "lost updates: \(missing.count) of \(written.count), e.g. \(missing.prefix(5))")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasSuffix(".lockfile") || $0.contains(".corrupt")
        }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test("A .lockfile left by a killed process is removed: its pid is gone")
    func staleLockFileOfDeadProcess() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "msal-extensions-stale-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("token_cache.json").path
        // A pid that cannot be alive (above the kernel's pid_max of 4194304).
        try Data("9999999 /usr/bin/python3".utf8).write(to: URL(fileURLWithPath: path + ".lockfile"))
        let file = try TokenCacheFile(path: path, options: TokenCacheFileOptions(lockTimeout: 2))
        try file.withLock(exclusive: true) { try $0.write(Array(#"{"AccessToken":{}}"#.utf8)) }
        #expect(!FileManager.default.fileExists(atPath: path + ".lockfile"))

        // One whose holder is alive (this process) is waited for, and the wait times out.
        try Data("\(getpid()) /usr/bin/python3".utf8).write(to: URL(fileURLWithPath: path + ".lockfile"))
        let quick = try TokenCacheFile(path: path, options: TokenCacheFileOptions(lockTimeout: 0.2))
        #expect(throws: MSALFailure.self) { try quick.withLock(exclusive: true) { _ in } }
        #expect(FileManager.default.fileExists(atPath: path + ".lockfile"))
        // Reads do not take it.
        #expect(try quick.withLock(exclusive: false) { try $0.read() } != nil)
    }
}
