import Foundation
import Glibc
import MSAL
import MSALSupport
import Testing

/// A fresh 0700 directory for one test, removed by `remove()`.
///
/// By default under /dev/shm (tmpfs) when it exists: every write syncs the file and the directory,
/// which on a disk shared with parallel builds can stall for seconds; `onDisk` uses /tmp instead.
struct ScratchDirectory {
    let path: String

    init(onDisk: Bool = false) throws {
        var isDirectory: ObjCBool = false
        let memory =
            FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory) && isDirectory.boolValue
            && access("/dev/shm", W_OK) == 0
        let base = onDisk || !memory ? "/tmp" : "/dev/shm"
        var template = Array("\(base)/msal-cachefile-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CocoaError(.fileWriteUnknown)
        }
        path = String(cString: made)
    }

    /// `path/name`.
    func file(_ name: String = "token_cache.json") -> String { path + "/" + name }

    /// Names in the directory, sorted.
    func names(_ directory: String? = nil) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory ?? path)) ?? []).sorted()
    }

    func remove() {
        _ = try? FileManager.default.removeItem(atPath: path)
    }
}

/// Raw file helpers that bypass `TokenCacheFile`.
enum RawFile {
    /// Creates or truncates `path` with `text` and then sets `mode` exactly.
    static func write(_ path: String, _ text: String, mode: mode_t = 0o600) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno)!) }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ Glibc.write(descriptor, $0.baseAddress, $0.count) }) == bytes.count,
            fchmod(descriptor, mode) == 0
        else {
            throw POSIXError(POSIXErrorCode(rawValue: errno)!)
        }
    }

    /// The text of `path`, following symlinks; `nil` when it cannot be read.
    static func text(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `lstat` of `path`.
    static func status(_ path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }

    /// Permission bits of `path` (not following a symlink).
    static func mode(_ path: String) -> mode_t? {
        status(path).map { $0.st_mode & 0o7777 }
    }

    /// Whether `path` is a symlink.
    static func isSymlink(_ path: String) -> Bool {
        status(path).map { $0.st_mode & S_IFMT == S_IFLNK } ?? false
    }

    /// Sets both times of `path` to `seconds` since 1970.
    static func setTimes(_ path: String, seconds: Int) throws {
        let times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
        guard utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno)!)
        }
    }
}

extension TokenCacheFile {
    /// Writes `text` under the exclusive lock.
    @discardableResult
    func put(_ text: String) throws -> TokenCacheFileStamp {
        try withLock(exclusive: true) { try $0.write(Array(text.utf8)) }
    }

    /// Reads the file as text under a shared lock (`nil` when absent).
    func get() throws -> String? {
        try withLock(exclusive: false) { try $0.read() }.map { String(decoding: $0, as: UTF8.self) }
    }
}

/// Runs the `MSALStressWorker` executable built with the tests.
enum StressWorker {
    /// The worker next to the test bundle (SwiftPM builds it because MSALTests depends on it).
    static let executable: URL = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("MSALStressWorker"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("MSALStressWorker"),
            Bundle.main.bundleURL.appendingPathComponent("MSALStressWorker"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }()

    struct Outcome: Sendable {
        var status: Int32
        var killedBySignal: Bool
        var standardOutput: String
        var standardError: String
    }

    /// A started worker; `kill()` it or `finish()` it.
    final class Running: Sendable {
        let child: ChildProcess

        /// Started with `ChildProcess`, not Foundation's `Process` (which crashed the test process
        /// with the many descriptors a parallel run holds open).
        init(_ arguments: [String], watchdogSeconds: Double) throws {
            child = try ChildProcess.start(StressWorker.executable.path, arguments, timeout: watchdogSeconds)
        }

        /// Reads standard output until a line equal to `line`; false if the worker exited first.
        func waitForLine(_ line: String) async -> Bool {
            await StressWorker.offCooperativePool {
                self.child.readOutput { output in
                    String(decoding: output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                        .contains(Substring(line))
                }
            }
        }

        /// Sends SIGKILL and reaps the process (its locks are released once this returns).
        func kill() async -> Outcome {
            await StressWorker.offCooperativePool { self.killNow() }
        }

        /// `kill()` on the calling thread, for a `defer`.
        func killNow() -> Outcome {
            child.kill()
            return finishNow()
        }

        /// Waits for the process to end and collects its output.
        func finish() async -> Outcome {
            await StressWorker.offCooperativePool { self.finishNow() }
        }

        private func finishNow() -> Outcome {
            let outcome = child.finish()
            return Outcome(
                status: outcome.status, killedBySignal: outcome.signal != nil,
                standardOutput: String(decoding: outcome.standardOutput, as: UTF8.self),
                standardError: String(decoding: outcome.standardError, as: UTF8.self))
        }
    }

    /// Starts the worker; it is killed after `watchdogSeconds` if still running, so no test can hang.
    static func start(_ arguments: [String], watchdogSeconds: Double = 120) throws -> Running {
        try Running(arguments, watchdogSeconds: watchdogSeconds)
    }

    /// Runs the worker to completion.
    static func run(_ arguments: [String], watchdogSeconds: Double = 120) async throws -> Outcome {
        try await start(arguments, watchdogSeconds: watchdogSeconds).finish()
    }

    /// Runs `body`, which blocks on a worker's pipes or exit, on a Dispatch thread: a test blocked
    /// on one of the few cooperative threads would stall every other test of a parallel run.
    static func offCooperativePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            DispatchQueue.global().async { continuation.resume(returning: body()) }
        }
    }
}

/// Runs `/usr/bin/chattr` (root's way to make a directory read-only; permission bits do not stop root).
@discardableResult
func chattr(_ flag: String, _ path: String) -> Bool {
    (try? ChildProcess.run("/usr/bin/chattr", [flag, path], timeout: 30))?.exitCode == 0
}

/// An error a test hook throws.
struct HookFailure: Error, Sendable, CustomStringConvertible {
    var description: String { "hook failure" }
}

/// Whether the tests run as root (permission bits do not apply; chown works).
let runningAsRoot = geteuid() == 0
