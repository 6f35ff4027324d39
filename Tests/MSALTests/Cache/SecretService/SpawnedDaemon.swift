import Foundation
import Glibc

/// A long-lived helper process (a bus, a keyring daemon) started with `posix_spawn`, holding no
/// descriptor of the test process but its own standard input and output.
///
/// Not `Foundation.Process`: a daemon started that way inherits whatever descriptors the test
/// process has open at that moment, among them those `Process` uses to notice that *other* children
/// exited; a daemon holding one keeps another test's process "running" until the daemon dies, and
/// two tests waiting on each other that way hung a full run. Here every descriptor from 3 up is
/// closed in the child (`posix_spawn_file_actions_addclosefrom_np`, glibc 2.34), and the test
/// reaps the daemon itself.
final class SpawnedDaemon: @unchecked Sendable {
    // @unchecked: the pid and descriptors are set in `init` and used by the one test that owns the daemon.
    let processIdentifier: pid_t
    /// The write end of the daemon's standard input (closed by ``closeInput()``).
    private(set) var input: Int32
    /// The read end of the daemon's standard output, when it was captured.
    let output: Int32?
    private var reaped = false

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// Starts `program arguments…` with `environment`; standard output goes to a pipe when
    /// `captureOutput`, else to `/dev/null`, as does standard error.
    init(_ program: String, _ arguments: [String], environment: [String: String], captureOutput: Bool) throws {
        guard let libc = dlopen(nil, RTLD_NOW), let symbol = dlsym(libc, "posix_spawn_file_actions_addclosefrom_np") else {
            throw Failure(description: "this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later)")
        }
        let addCloseFrom = unsafeBitCast(symbol, to: AddCloseFrom.self)
        var inputPipe: [Int32] = [-1, -1]
        var outputPipe: [Int32] = [-1, -1]
        // Close-on-exec in this process (other children started meanwhile do not keep them);
        // `dup2` in the child clears the flag on 0 and 1. (`pipe2` is not imported by Swift's Glibc.)
        func makePipe(_ ends: inout [Int32]) throws {
            guard pipe(&ends) == 0 else { throw Failure(description: "pipe: errno \(errno)") }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        }
        try makePipe(&inputPipe)
        if captureOutput {
            try makePipe(&outputPipe)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inputPipe[0], 0)
        if captureOutput {
            posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        _ = addCloseFrom(&actions, 3)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, program, &actions, nil, argv, envp)
        close(inputPipe[0])
        if captureOutput { close(outputPipe[1]) }
        guard result == 0 else {
            close(inputPipe[1])
            if captureOutput { close(outputPipe[0]) }
            throw Failure(description: "posix_spawn \(program): \(String(cString: strerror(result)))")
        }
        processIdentifier = pid
        input = inputPipe[1]
        output = captureOutput ? outputPipe[0] : nil
    }

    /// Writes `bytes` to the daemon's standard input.
    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.write(input, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            offset += count
        }
    }

    /// Closes the daemon's standard input (end of file for it).
    func closeInput() {
        if input >= 0 {
            close(input)
            input = -1
        }
    }

    /// The first line the daemon writes to its standard output (blocking; call it off the cooperative pool).
    func readLine() -> String {
        guard let output else { return "" }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while Glibc.read(output, &byte, 1) == 1, byte != UInt8(ascii: "\n") {
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self)
    }

    /// Sends SIGKILL and reaps the process (it dies at once; the wait is short).
    func kill() {
        guard !reaped else { return }
        reaped = true
        Glibc.kill(processIdentifier, SIGKILL)
        var status: Int32 = 0
        while waitpid(processIdentifier, &status, 0) == -1 && errno == EINTR {}
        closeInput()
        if let output { close(output) }
    }

    deinit {
        kill()
    }
}
