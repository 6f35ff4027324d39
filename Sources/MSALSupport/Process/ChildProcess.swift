import Foundation
import Glibc

/// A program run with `posix_spawn`: its standard input given, its standard output and error
/// collected, killed after a time limit. ``run(_:_:environment:currentDirectory:standardInput:timeout:)``
/// runs one to completion; ``start(_:_:environment:currentDirectory:standardInput:timeout:)`` returns
/// the running child, whose output can be read as it comes.
///
/// Not Foundation's `Process`, for three reasons seen in this project's test runs:
/// - with more than about 1,360 descriptors open, `Process.run()` reads past the end of the buffer
///   that lists `/proc/self/fd` (it copies each entry's whole 256-byte name field) and crashed the
///   test process;
/// - a child inherits every descriptor of the parent that is not close-on-exec at that moment,
///   among them those `Process` uses to learn that *other* children exited, so one long-lived
///   child kept other tests' processes "running";
/// - a child started from a Dispatch thread inherits that thread's blocked signals (SIGTERM among
///   them).
///
/// Here every descriptor from 3 up is closed in the child (`posix_spawn_file_actions_addclosefrom_np`,
/// glibc 2.34), its signal mask is empty and every signal has its default action, and the caller's
/// thread reaps it. Reading, finishing and `run` block their thread: from async code, call them from
/// a thread of your own (for example a Dispatch queue), never from the cooperative pool.
// @unchecked Sendable: the pipes and the collected output are used by one thread at a time, the
// owner's (read, finish); `kill` from any thread only reads the pid, under `reaped`'s lock so that a
// reaped (and perhaps reused) pid is never signalled.
package final class ChildProcess: @unchecked Sendable {
    /// Why a program could not be run.
    package struct Failure: Error, CustomStringConvertible, Sendable {
        /// What failed, with the program's path.
        package let description: String

        init(_ description: String) {
            self.description = description
        }
    }

    /// How a program ended and what it wrote.
    package struct Outcome: Sendable {
        /// The exit code, or `nil` when a signal ended the program.
        package var exitCode: Int32?
        /// The signal that ended the program, if one did.
        package var signal: Int32?
        /// Everything written to standard output.
        package var standardOutput: [UInt8]
        /// Everything written to standard error.
        package var standardError: [UInt8]
        /// The program was still running at the time limit and was killed (SIGKILL).
        package var timedOut: Bool

        /// The exit code, or the signal's number when a signal ended the program (as
        /// Foundation's `Process.terminationStatus`).
        package var status: Int32 { exitCode ?? signal ?? -1 }
    }

    /// Where the child's standard output or error goes.
    package enum Destination: Sendable {
        /// A pipe read by this object: ``Outcome``, ``standardOutputSoFar``, ``standardErrorSoFar``.
        case collect
        /// `/dev/null`.
        case discard
        /// A file, created (mode 0600) if missing and appended to.
        case file(String)
        /// A descriptor of the caller's (such as a pseudo-terminal), duplicated onto the child's;
        /// the caller keeps its own and closes it.
        case descriptor(Int32)
    }

    /// The child's process id.
    package let processIdentifier: pid_t
    private var pipes: Pipes
    private let input: [UInt8]
    private var written = 0
    /// Keep standard input open once `input` is written, until ``closeInput()`` or ``finish()``.
    private var keepsInputOpen: Bool
    private var outcome = Outcome(exitCode: nil, signal: nil, standardOutput: [], standardError: [], timedOut: false)
    /// Uptime nanoseconds at which the child is killed.
    private var deadline: UInt64?
    private let reaped = Mutex(false)

    /// Runs `executable` (a path; no `PATH` search, no shell) with `arguments` to completion.
    ///
    /// - Parameters:
    ///   - environment: the child's whole environment; `nil` passes this process's.
    ///   - currentDirectory: the child's working directory; `nil` keeps this process's.
    ///   - standardInput: written to the child's standard input, which is then closed; `nil` gives
    ///     it `/dev/null`.
    ///   - standardOutput, standardError: where each goes; collected by default.
    ///   - timeout: seconds after which the child is killed with SIGKILL (`timedOut` is then true);
    ///     `nil` waits as long as it runs.
    package static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, currentDirectory: String? = nil,
        standardInput: [UInt8]? = nil, standardOutput: Destination = .collect, standardError: Destination = .collect,
        timeout: Double? = nil
    ) throws(Failure) -> Outcome {
        try start(
            executable, arguments, environment: environment, currentDirectory: currentDirectory, standardInput: standardInput,
            standardOutput: standardOutput, standardError: standardError, timeout: timeout
        ).finish()
    }

    /// Starts `executable` as ``run(_:_:environment:currentDirectory:standardInput:standardOutput:standardError:timeout:)``
    /// does and returns at once; ``finish()`` collects the rest and the status.
    ///
    /// With `keepInputOpen`, standard input is a pipe that stays open after `standardInput` (if
    /// any) is written, until ``closeInput()`` or ``finish()``: for a child that runs until its
    /// input ends. Input that fits the pipe is written before this returns.
    ///
    /// `inputDescriptor`, when given without `standardInput` or `keepInputOpen`, is a descriptor of
    /// the caller's (such as a pseudo-terminal) duplicated onto the child's standard input.
    package static func start(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, currentDirectory: String? = nil,
        standardInput: [UInt8]? = nil, keepInputOpen: Bool = false, inputDescriptor: Int32? = nil,
        standardOutput: Destination = .collect, standardError: Destination = .collect, timeout: Double? = nil
    ) throws(Failure) -> ChildProcess {
        var pipes = Pipes()
        do {
            try pipes.open(input: standardInput != nil || keepInputOpen, output: standardOutput, error: standardError)
            let pid = try spawn(
                executable, arguments, environment: environment, currentDirectory: currentDirectory, pipes: &pipes,
                input: inputDescriptor, output: standardOutput, error: standardError)
            let deadline = timeout.map { DispatchTime.now().uptimeNanoseconds + UInt64(max(0, min($0, 1e9)) * 1e9) }
            return ChildProcess(pid: pid, pipes: pipes, input: standardInput ?? [], keepInputOpen: keepInputOpen, deadline: deadline)
        } catch {
            pipes.closeAll()
            throw error
        }
    }

    private init(pid: pid_t, pipes: Pipes, input: [UInt8], keepInputOpen: Bool, deadline: UInt64?) {
        self.processIdentifier = pid
        self.pipes = pipes
        self.input = input
        self.keepsInputOpen = keepInputOpen
        self.deadline = deadline
        if self.pipes.inputWrite >= 0 {
            _ = fcntl(self.pipes.inputWrite, F_SETFL, fcntl(self.pipes.inputWrite, F_GETFL) | O_NONBLOCK)
            writeInput()
        }
    }

    /// Closes the child's standard input (end of file for it) once the input given is written.
    package func closeInput() {
        keepsInputOpen = false
        writeInput()
    }

    /// Writes what the pipe takes of the rest of the input without waiting; closes the pipe when
    /// all is written and it is not kept open, or when the pipe is broken.
    private func writeInput() {
        guard pipes.inputWrite >= 0 else { return }
        // A child that exits without reading its input makes the write fail with EPIPE and raise
        // SIGPIPE, whose default action would end this process: the signal is blocked on this
        // thread (it is sent to the writing thread) while writing, and a pending one is consumed.
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previousMask = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previousMask)
        var broken = false
        defer {
            if broken && sigismember(&previousMask, SIGPIPE) == 0 {
                var now = timespec()
                _ = sigtimedwait(&pipeSignal, nil, &now)
            }
            pthread_sigmask(SIG_SETMASK, &previousMask, nil)
        }
        while written < input.count {
            let count = input[written...].withUnsafeBytes { write(pipes.inputWrite, $0.baseAddress, $0.count) }
            if count > 0 {
                written += count
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                broken = count < 0 && errno != EAGAIN
                break
            }
        }
        if broken || (written == input.count && !keepsInputOpen) { pipes.closeInput() }
    }

    deinit {
        // Dropped without `finish()`: no child left running, no zombie.
        if !reaped.withLock({ $0 }) {
            kill()
            _ = reap(deadline: nil)
        }
        pipes.closeAll()
    }

    /// Reads until `stop` is true of the standard output read so far; false if the output ended
    /// (or the time limit came) first. Standard input is written and standard error read meanwhile.
    package func readOutput(until stop: ([UInt8]) -> Bool) -> Bool {
        exchange { stop($0.standardOutput) }
    }

    /// Reads until `stop` is true of the standard error read so far, as ``readOutput(until:)`` does
    /// for standard output.
    package func readError(until stop: ([UInt8]) -> Bool) -> Bool {
        exchange { stop($0.standardError) }
    }

    /// The standard output read so far.
    package var standardOutputSoFar: [UInt8] { outcome.standardOutput }

    /// The standard error read so far.
    package var standardErrorSoFar: [UInt8] { outcome.standardError }

    /// Whether the child is still running (it has not exited, and has not been reaped).
    package var isRunning: Bool {
        reaped.withLock { done in
            guard !done else { return false }
            // Looks without reaping (WNOWAIT): `finish` still collects the status. No waitable
            // child leaves the pid field zero.
            var information = siginfo_t()
            guard waitid(P_PID, id_t(processIdentifier), &information, WEXITED | WNOHANG | WNOWAIT) == 0 else { return false }
            return information._sifields._kill.si_pid == 0
        }
    }

    /// Sends `signal` (SIGKILL by default) to the child, unless it has been reaped.
    package func kill(_ signal: Int32 = SIGKILL) {
        reaped.withLock { done in
            if !done { _ = Glibc.kill(processIdentifier, signal) }
        }
    }

    /// Writes the rest of the input and closes it, reads the collected outputs to their end and
    /// waits for the child.
    package func finish() -> Outcome {
        keepsInputOpen = false
        _ = exchange { _ in false }
        let status = reap(deadline: outcome.timedOut ? nil : deadline)
        pipes.closeAll()
        // The wait status's layout (WIFEXITED, WEXITSTATUS, WTERMSIG: C macros Swift does not import).
        if status & 0x7f == 0 {
            outcome.exitCode = (status >> 8) & 0xff
        } else {
            outcome.signal = status & 0x7f
        }
        return outcome
    }
}

extension ChildProcess {
    /// The parent's ends and the child's ends of the three pipes; -1 where there is none.
    struct Pipes {
        var inputRead: Int32 = -1
        var inputWrite: Int32 = -1
        var outputRead: Int32 = -1
        var outputWrite: Int32 = -1
        var errorRead: Int32 = -1
        var errorWrite: Int32 = -1

        /// Opens the pipes, every end close-on-exec (other children started meanwhile must not
        /// keep them; `dup2` in this child clears the flag on 0, 1 and 2).
        mutating func open(input: Bool, output: Destination, error: Destination) throws(Failure) {
            func make() throws(Failure) -> (Int32, Int32) {
                var ends: [Int32] = [-1, -1]
                guard pipe(&ends) == 0 else { throw Failure("pipe: \(String(cString: strerror(errno)))") }
                for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
                return (ends[0], ends[1])
            }
            if input { (inputRead, inputWrite) = try make() }
            if case .collect = output { (outputRead, outputWrite) = try make() }
            if case .collect = error { (errorRead, errorWrite) = try make() }
        }

        /// Closes the child's ends (after the spawn).
        mutating func closeChildEnds() {
            for end in [inputRead, outputWrite, errorWrite] where end >= 0 { close(end) }
            inputRead = -1
            outputWrite = -1
            errorWrite = -1
        }

        mutating func closeInput() {
            if inputWrite >= 0 { close(inputWrite) }
            inputWrite = -1
        }

        mutating func closeOutput(_ descriptor: Int32) {
            close(descriptor)
            if descriptor == outputRead { outputRead = -1 } else if descriptor == errorRead { errorRead = -1 }
        }

        mutating func closeAll() {
            closeChildEnds()
            for end in [inputWrite, outputRead, errorRead] where end >= 0 { close(end) }
            inputWrite = -1
            outputRead = -1
            errorRead = -1
        }
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    /// glibc's `posix_spawn_file_actions_*_np` extensions, looked up at run time (Swift's Glibc
    /// module does not declare them).
    private static func libcSymbol(_ name: String) -> UnsafeMutableRawPointer? {
        guard let handle = dlopen(nil, RTLD_NOW) else { return nil }
        return dlsym(handle, name)
    }

    private static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String]?, currentDirectory: String?, pipes: inout Pipes,
        input: Int32?, output: Destination, error: Destination
    ) throws(Failure) -> pid_t {
        guard let closeFromSymbol = libcSymbol("posix_spawn_file_actions_addclosefrom_np") else {
            throw Failure("this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later)")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if pipes.inputRead >= 0 {
            posix_spawn_file_actions_adddup2(&actions, pipes.inputRead, 0)
        } else if let input {
            posix_spawn_file_actions_adddup2(&actions, input, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        for (descriptor, destination, pipe) in [(Int32(1), output, pipes.outputWrite), (2, error, pipes.errorWrite)] {
            switch destination {
            case .collect: posix_spawn_file_actions_adddup2(&actions, pipe, descriptor)
            case .discard: posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_WRONLY, 0)
            case .file(let path): posix_spawn_file_actions_addopen(&actions, descriptor, path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            case .descriptor(let given): posix_spawn_file_actions_adddup2(&actions, given, descriptor)
            }
        }
        _ = unsafeBitCast(closeFromSymbol, to: AddCloseFrom.self)(&actions, 3)
        if let currentDirectory {
            guard let chdirSymbol = libcSymbol("posix_spawn_file_actions_addchdir_np") else {
                throw Failure("this C library has no posix_spawn_file_actions_addchdir_np (glibc 2.29 or later)")
            }
            let added = currentDirectory.withCString { unsafeBitCast(chdirSymbol, to: AddChdir.self)(&actions, $0) }
            guard added == 0 else { throw Failure("cannot run \(executable) in \(currentDirectory): \(String(cString: strerror(added)))") }
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var every = sigset_t()
        sigfillset(&every)
        sigdelset(&every, SIGKILL)
        sigdelset(&every, SIGSTOP)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &every)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result: Int32
        if let environment {
            let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { envp.forEach { free($0) } }
            result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        } else {
            result = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        }
        pipes.closeChildEnds()
        guard result == 0 else { throw Failure("cannot run \(executable): \(String(cString: strerror(result)))") }
        return pid
    }

    /// Writes the input and reads both outputs until the child closes them or `stop` is true of
    /// what was read so far (then returns true), killing the child at the deadline; after a
    /// kill, waits at most 2 s more for the pipes to close (a grandchild may hold them).
    fileprivate func exchange(until stop: (Outcome) -> Bool) -> Bool {
        if stop(outcome) { return true }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var pending: Bool { pipes.inputWrite >= 0 && (written < input.count || !keepsInputOpen) }
        if pipes.inputWrite >= 0 && written == input.count && !keepsInputOpen { pipes.closeInput() }
        while pipes.outputRead >= 0 || pipes.errorRead >= 0 || pending {
            var waitMilliseconds: Int32 = -1
            if let limit = deadline {
                let now = DispatchTime.now().uptimeNanoseconds
                if now >= limit {
                    if outcome.timedOut { break }  // The grace period after the kill is over too.
                    kill()
                    outcome.timedOut = true
                    deadline = now + 2_000_000_000
                    continue
                }
                waitMilliseconds = Int32(min((limit - now) / 1_000_000 + 1, 1_000))
            }
            var descriptors: [pollfd] = []
            for descriptor in [pipes.outputRead, pipes.errorRead] where descriptor >= 0 {
                descriptors.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0))
            }
            if pending {
                descriptors.append(pollfd(fd: pipes.inputWrite, events: Int16(POLLOUT), revents: 0))
            }
            let ready = poll(&descriptors, nfds_t(descriptors.count), waitMilliseconds)
            if ready < 0 && errno != EINTR { break }
            guard ready > 0 else { continue }
            for entry in descriptors where entry.revents != 0 {
                if entry.fd == pipes.inputWrite {
                    writeInput()
                    continue
                }
                let count = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    if entry.fd == pipes.outputRead {
                        outcome.standardOutput += buffer[0..<count]
                    } else {
                        outcome.standardError += buffer[0..<count]
                    }
                    if stop(outcome) { return true }
                } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                    pipes.closeOutput(entry.fd)
                }
            }
        }
        if !keepsInputOpen { pipes.closeInput() }
        return false
    }

    /// Waits for the child to end and returns its wait status. With a `deadline` (the pipes closed
    /// before it, but the child may still run, having closed them or handed them to a grandchild),
    /// kills it there.
    fileprivate func reap(deadline: UInt64?) -> Int32 {
        var status: Int32 = 0
        var ended = false
        if let deadline {
            while !ended && DispatchTime.now().uptimeNanoseconds < deadline {
                let result = reaped.withLock { done -> pid_t in
                    let result = waitpid(processIdentifier, &status, WNOHANG)
                    if result == processIdentifier { done = true }
                    return result
                }
                if result == processIdentifier { return status }
                if result == -1 && errno != EINTR { ended = true } else { usleep(5_000) }
            }
            if !ended {
                kill()
                outcome.timedOut = true
            }
        }
        // Waits without reaping (WNOWAIT) and outside the lock, which a concurrent `kill` takes;
        // then reaps the zombie under the lock, so `kill` never signals a pid that may be reused.
        var information = siginfo_t()
        while waitid(P_PID, id_t(processIdentifier), &information, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
        reaped.withLock { done in
            while waitpid(processIdentifier, &status, 0) == -1 && errno == EINTR {}
            done = true
        }
        return status
    }
}
