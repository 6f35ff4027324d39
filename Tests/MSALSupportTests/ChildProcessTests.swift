import Foundation
import Testing

@testable import MSALSupport

#if canImport(Glibc)
import Glibc
#endif

/// `ChildProcess` runs real programs from `/bin` and `/usr/bin`.
@Suite("ChildProcess: programs run with posix_spawn, their input given and output collected")
struct ChildProcessTests {
    @Test("Standard input in, output and error apart, the exit code; an empty input; no input is /dev/null")
    func inputOutputAndStatus() throws {
        let echoed = try ChildProcess.run("/bin/cat", [], standardInput: Array("one\ntwo\n".utf8))
        #expect(echoed.exitCode == 0 && echoed.signal == nil && !echoed.timedOut)
        #expect(echoed.standardOutput == Array("one\ntwo\n".utf8))
        #expect(echoed.standardError.isEmpty)

        let failed = try ChildProcess.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"])
        #expect(failed.exitCode == 3 && failed.status == 3)
        #expect(String(decoding: failed.standardOutput, as: UTF8.self) == "out\n")
        #expect(String(decoding: failed.standardError, as: UTF8.self) == "err\n")

        #expect(try ChildProcess.run("/bin/cat", [], standardInput: []).standardOutput.isEmpty)
        #expect(try ChildProcess.run("/bin/cat", []).standardOutput.isEmpty, "no input: /dev/null, so cat ends at once")
    }

    @Test("Megabytes both ways at once do not deadlock; input the child never reads is a broken pipe, not a crash")
    func largeAndUnreadInput() throws {
        let input = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let copied = try ChildProcess.run("/bin/sh", ["-c", "cat; head -c 2000000 /dev/zero >&2"], standardInput: input, timeout: 60)
        #expect(copied.exitCode == 0)
        #expect(copied.standardOutput == input)
        #expect(copied.standardError.count == 2_000_000)

        let ignored = try ChildProcess.run("/bin/true", [], standardInput: [UInt8](repeating: 65, count: 1_000_000), timeout: 60)
        #expect(ignored.exitCode == 0)
    }

    @Test("Environment, working directory and arguments are passed as given, without a shell")
    func environmentDirectoryArguments() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("child-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outcome = try ChildProcess.run(
            "/bin/sh", ["-c", "pwd; echo \"$GREETING\"; printf '%s|' \"$@\"", "sh", "a b", "$HOME", "*"],
            environment: ["GREETING": "hello there", "PATH": "/usr/bin:/bin"], currentDirectory: folder.path)
        let lines = String(decoding: outcome.standardOutput, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3)
        #expect(String(lines[0]) == folder.resolvingSymlinksInPath().path)
        #expect(lines[1] == "hello there")
        #expect(lines[2] == "a b|$HOME|*|")
        let inherited = try ChildProcess.run("/usr/bin/env", [])
        #expect(String(decoding: inherited.standardOutput, as: UTF8.self).contains("PATH="), "nil: this process's environment")
    }

    @Test("The time limit kills the child with SIGKILL, also one whose grandchild keeps the pipes open")
    func timeLimit() throws {
        let start = Date()
        let slept = try ChildProcess.run("/bin/sleep", ["30"], timeout: 0.5)
        #expect(slept.timedOut && slept.signal == SIGKILL && slept.exitCode == nil)
        // The grandchild holds standard output after its parent is killed: given up 2 s later.
        let held = try ChildProcess.run("/bin/sh", ["-c", "sleep 30 & sleep 30"], timeout: 0.5)
        #expect(held.timedOut)
        #expect(Date().timeIntervalSince(start) < 10)
        // A child that closes its output but keeps running is still killed at the limit.
        let closed = try ChildProcess.run("/bin/sh", ["-c", "exec >&- 2>&-; sleep 30"], timeout: 0.5)
        #expect(closed.timedOut && closed.signal == SIGKILL)
    }

    @Test("The child holds no descriptor of this process but 0, 1 and 2; a missing program is a Failure")
    func descriptorsAndFailures() throws {
        // A descriptor this process holds open without close-on-exec.
        let opened = open("/dev/null", O_RDONLY)
        try #require(opened >= 0)
        let held = fcntl(opened, F_DUPFD, 500)
        close(opened)
        try #require(held >= 500)
        defer { close(held) }
        let listed = try ChildProcess.run("/bin/sh", ["-c", "ls /proc/$$/fd"])
        let descriptors = String(decoding: listed.standardOutput, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
        #expect(Set(descriptors).isSubset(of: [0, 1, 2, 10, 255]), "\(descriptors)")
        #expect(descriptors.contains(1) && !descriptors.contains(Int(held)))

        #expect(throws: ChildProcess.Failure.self) { try ChildProcess.run("/nonexistent/program", []) }
        #expect(throws: ChildProcess.Failure.self) { try ChildProcess.run("/bin/true", [], currentDirectory: "/nonexistent/folder") }
    }

    @Test("With 1,500 more descriptors open (Foundation's Process crashed past about 1,360) a child runs")
    func manyDescriptors() throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < 4_096 && limit.rlim_max >= 4_096 {
            limit.rlim_cur = 4_096
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        var opened: [Int32] = []
        defer { opened.forEach { close($0) } }
        for _ in 0..<1_500 {
            let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
            try #require(descriptor >= 0)
            opened.append(descriptor)
        }
        let outcome = try ChildProcess.run("/bin/echo", ["still here"])
        #expect(outcome.exitCode == 0 && outcome.standardOutput == Array("still here\n".utf8))
    }
}

@Suite("ChildProcess: a started child read as it writes, killed, or left to finish")
struct ChildProcessStartedTests {
    @Test("Output read up to a line while the child keeps running; then killed; isRunning follows")
    func readUntilThenKill() throws {
        let child = try ChildProcess.start("/bin/sh", ["-c", "echo ready; echo note >&2; exec sleep 30"], timeout: 60)
        #expect(child.readOutput { $0.contains(UInt8(ascii: "\n")) })
        #expect(child.standardOutputSoFar == Array("ready\n".utf8))
        #expect(child.isRunning)
        #expect(child.isRunning, "asking twice does not reap it")
        child.kill()
        let outcome = child.finish()
        #expect(outcome.signal == SIGKILL && !outcome.timedOut)
        #expect(outcome.standardOutput == Array("ready\n".utf8))
        #expect(!child.isRunning)
        child.kill()  // After the reap: nothing is signalled.
    }

    @Test("A child that exits: isRunning turns false without reaping it, finish still has its status")
    func exitSeenWithoutReaping() throws {
        let child = try ChildProcess.start("/bin/sh", ["-c", "exit 7"])
        #expect(!child.readOutput { _ in false }, "the output ends before anything matches")
        let deadline = Date().addingTimeInterval(10)
        while child.isRunning && Date() < deadline { usleep(5_000) }
        #expect(!child.isRunning)
        #expect(child.finish().exitCode == 7)
    }

    @Test("A started child dropped without finish is killed and reaped")
    func droppedChild() throws {
        var pid: pid_t = 0
        do {
            let child = try ChildProcess.start("/bin/sleep", ["30"])
            pid = child.processIdentifier
        }
        #expect(pid > 0)
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "no process, not even a zombie, is left")
    }
}

@Suite("ChildProcess: an input kept open, outputs discarded or sent to a file")
struct ChildProcessDestinationTests {
    @Test("An input kept open: the child reads until closeInput(); then it ends")
    func inputKeptOpen() throws {
        let child = try ChildProcess.start(
            "/bin/sh", ["-c", "read first; echo \"got $first\"; cat; echo done"], standardInput: Array("one\n".utf8), keepInputOpen: true,
            timeout: 60)
        #expect(child.readOutput { String(decoding: $0, as: UTF8.self).contains("got one\n") })
        #expect(child.isRunning, "cat waits for the end of the input")
        child.closeInput()
        let outcome = child.finish()
        #expect(outcome.exitCode == 0 && !outcome.timedOut)
        #expect(String(decoding: outcome.standardOutput, as: UTF8.self) == "got one\ndone\n")
    }

    @Test("finish() closes an input kept open; an empty input kept open is not closed at start")
    func finishClosesInput() throws {
        let child = try ChildProcess.start("/bin/cat", [], keepInputOpen: true, timeout: 60)
        usleep(100_000)
        #expect(child.isRunning)
        let outcome = child.finish()
        #expect(outcome.exitCode == 0 && outcome.standardOutput.isEmpty && !outcome.timedOut)
    }

    @Test("Standard output to a file (appended, created 0600), standard error discarded")
    func fileAndDiscard() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("child-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("out.log").path
        for word in ["first", "second"] {
            let outcome = try ChildProcess.run(
                "/bin/sh", ["-c", "echo \(word); echo noise >&2"], standardOutput: .file(log), standardError: .discard)
            #expect(outcome.exitCode == 0 && outcome.standardOutput.isEmpty && outcome.standardError.isEmpty)
        }
        #expect(FileManager.default.contents(atPath: log) == Data("first\nsecond\n".utf8))
        var information = stat()
        #expect(stat(log, &information) == 0 && information.st_mode & 0o777 == 0o600)
        // Input that a child with no collected output never reads: written or dropped, no hang, no SIGPIPE.
        let quiet = try ChildProcess.run(
            "/bin/true", [], standardInput: [UInt8](repeating: 1, count: 500_000), standardOutput: .discard, standardError: .discard,
            timeout: 60)
        #expect(quiet.exitCode == 0 && !quiet.timedOut)
    }
}
