import Glibc
import MSAL

/// Modes exercising the byte-level cache file (`TokenCacheFile`).
enum FileModes {
    static let all: [String: WorkerMode] = [
        "file-append": WorkerMode(usage: "PATH COUNT TAG", run: append),
        "hold-lock": WorkerMode(usage: "PATH", run: holdLock),
        "kill-mid-write": WorkerMode(usage: "PATH [TEXT]", run: killMidWrite),
        "write-limited": WorkerMode(usage: "PATH BYTES", run: writeLimited),
    ]

    /// COUNT times, under the exclusive lock: read, append the line `TAG i`, write.
    static func append(_ arguments: [String]) throws {
        let usage = "usage: file-append PATH COUNT TAG"
        guard arguments.count == 3 else { WorkerMode.fail(usage: usage) }
        let count = WorkerMode.count(arguments, 1, usage)
        // Generous: the other writer may hold the lock for most of its own run.
        let file = try TokenCacheFile(path: arguments[0], options: TokenCacheFileOptions(lockTimeout: 300))
        for index in 0..<count {
            try file.withLock(exclusive: true) { access in
                var bytes = try access.read() ?? []
                bytes += Array("\(arguments[2]) \(index)\n".utf8)
                _ = try access.write(bytes)
            }
        }
    }

    /// Takes the exclusive lock, prints `locked`, and sleeps until killed.
    static func holdLock(_ arguments: [String]) throws {
        guard arguments.count == 1 else { WorkerMode.fail(usage: "usage: hold-lock PATH") }
        let file = try TokenCacheFile(path: arguments[0])
        try file.withLock(exclusive: true) { _ in
            WorkerMode.emit("locked\n", to: STDOUT_FILENO)
            while true {
                sleep(3_600)
            }
        }
    }

    /// Writes TEXT (default `content from a killed writer`) and kills itself with `SIGKILL` once the
    /// temporary file is complete, before the rename.
    static func killMidWrite(_ arguments: [String]) throws {
        guard arguments.count == 1 || arguments.count == 2 else {
            WorkerMode.fail(usage: "usage: kill-mid-write PATH [TEXT]")
        }
        let text = arguments.count == 2 ? arguments[1] : "content from a killed writer\n"
        let options = TokenCacheFileOptions(beforeRename: { _ in
            _ = raise(SIGKILL)
            _exit(9)
        })
        let file = try TokenCacheFile(path: arguments[0], options: options)
        _ = try file.withLock(exclusive: true) { access in
            try access.write(Array(text.utf8))
        }
    }

    /// Limits the process's file size to BYTES (`RLIMIT_FSIZE`, with `SIGXFSZ` ignored) and writes four
    /// times as many bytes, so the write fails with `EFBIG` part-way.
    static func writeLimited(_ arguments: [String]) throws {
        let usage = "usage: write-limited PATH BYTES"
        guard arguments.count == 2 else { WorkerMode.fail(usage: usage) }
        let bytes = WorkerMode.count(arguments, 1, usage)
        var limit = rlimit(rlim_cur: rlim_t(bytes), rlim_max: rlim_t(bytes))
        guard setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit) == 0 else {
            WorkerMode.printError("setrlimit failed: errno \(errno)")
            exit(3)
        }
        _ = signal(SIGXFSZ, SIG_IGN)
        let file = try TokenCacheFile(path: arguments[0])
        _ = try file.withLock(exclusive: true) { access in
            try access.write([UInt8](repeating: UInt8(ascii: "x"), count: bytes * 4))
        }
    }
}
