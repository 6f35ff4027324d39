import Dispatch
import Glibc
import MSAL
import MSALSupport

/// Reads one line of a secret typed at a terminal without showing it: a prompt on standard error,
/// echo off while the line is typed, and the terminal's own settings back on every way out.
///
/// Echo is cleared (`ECHO`, and `ECHONL` so that not even the line break shows) while `ICANON`
/// and `ISIG` stay set, so the line can be edited and Ctrl-C, Ctrl-\ and Ctrl-Z still send their
/// signals. The settings are restored after a line, at end of input, after a read error, and on
/// SIGINT, SIGTERM, SIGHUP and SIGQUIT, which then end the process with their default action (as if
/// they had come at any other time). SIGTSTP restores the terminal, stops the process, and on
/// SIGCONT turns echo off again and shows the prompt again, as `readpassphrase(3)` does.
///
/// No process-wide storage holds the saved settings: each signal is watched by a `DispatchSource`
/// whose handler captures them. On Linux, libdispatch installs a C handler of its own for a watched
/// signal (that forwards it to its event thread), so the signal is never left at its default
/// action while echo is off; a signal the process ignores (`SIG_IGN`, as `nohup` leaves SIGHUP)
/// stays ignored and is not watched. (Setting a watched signal to `SIG_IGN` while reading, as for
/// the emulator's sources, would not help here: libdispatch replaces it with its handler when the
/// source registers, and once that is undone the kernel drops an ignored signal before
/// libdispatch's `signalfd` sees it.) Before the terminal is changed, every source is registered;
/// after it is restored, each signal's previous C disposition is put back, so later signals act
/// as before the read.
enum TerminalSecretReader {
    /// Signals that end the process by default: the terminal is restored, then each ends it as by default.
    static let terminatingSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    /// Reads one line from `descriptor` (a terminal) with echo off, after writing `prompt` to
    /// standard error; writes a line break to standard error afterwards (the typed one is not shown).
    ///
    /// - Returns: the line's bytes, without its line break; at end of input, what was typed before it.
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/internalErrorInvalidParameter`` when the
    ///   terminal cannot be read or set, or ``MSALInternalError/limitExceeded`` for a line over `limit` bytes.
    static func readLine(from descriptor: Int32 = STDIN_FILENO, prompt: String, limit: Int) throws -> [UInt8] {
        var original = termios()
        guard tcgetattr(descriptor, &original) == 0 else {
            throw failure("cannot read the terminal's settings", errno: errno)
        }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO | ECHOE | ECHOK | ECHONL)
        silent.c_lflag |= tcflag_t(ICANON | ISIG)
        let session = Session(descriptor: descriptor, original: original, silent: silent, prompt: prompt)
        let watch = SignalWatch(session: session)
        defer { watch.stop() }
        try session.begin()
        defer { session.end() }
        return try readLine(descriptor, limit: limit)
    }

    /// Reads up to a line break or end of input; `read(2)` returns at most one line of a terminal in
    /// canonical mode, so nothing after the line is consumed.
    private static func readLine(_ descriptor: Int32, limit: Int) throws -> [UInt8] {
        var collected: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return collected }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw failure("cannot read the terminal", errno: code)
            }
            collected.append(contentsOf: buffer[..<count])
            if let end = collected.firstIndex(of: UInt8(ascii: "\n")) {
                return Array(collected[..<end])
            }
            guard collected.count <= limit else {
                throw MSALFailure(.internal, internalCode: .limitExceeded, message: "the line typed is longer than \(limit) bytes")
            }
        }
    }

    /// A typed error for a failed terminal call, naming the call's purpose and the reason.
    fileprivate static func failure(_ what: String, errno code: Int32) -> MSALFailure {
        MSALFailure(
            .internal, internalCode: .internalErrorInvalidParameter, message: "\(what): \(String(cString: strerror(code))) (errno \(code))")
    }
}

extension TerminalSecretReader {
    /// The terminal's settings while a secret is read, shared by the reading thread and the signal
    /// handlers: its lock orders a handler's restore against the end of the read, so a SIGTSTP that
    /// races the end never turns echo off again after the read has restored it.
    final class Session: Sendable {
        /// The terminal read from.
        let descriptor: Int32
        /// The terminal's settings before the read, put back at the end.
        let original: termios
        /// The settings while the secret is typed: no echo, canonical mode, signals on.
        let silent: termios
        /// The prompt written to standard error (again after a stop).
        let prompt: String
        /// Where the read is; echo is off in ``State/silent`` alone.
        private let state = Mutex(State.idle)

        /// Where the read is: not begun, echo off, stopped (echo restored), or over.
        private enum State {
            case idle, silent, stopped, ended
        }

        init(descriptor: Int32, original: termios, silent: termios, prompt: String) {
            self.descriptor = descriptor
            self.original = original
            self.silent = silent
            self.prompt = prompt
        }

        /// Turns echo off and writes the prompt.
        func begin() throws {
            try state.withLock { state in
                var settings = silent
                guard tcsetattr(descriptor, TCSAFLUSH, &settings) == 0 else {
                    throw TerminalSecretReader.failure("cannot turn the terminal's echo off", errno: errno)
                }
                state = .silent
                Self.writeError(prompt)
            }
        }

        /// Restores the terminal (if echo is off) and ends the read: later stops change nothing.
        func end() {
            state.withLock { state in
                if state == .silent { restore() }
                state = .ended
            }
        }

        /// Restores the terminal (if echo is off) for a signal that ends the process.
        func restoreForExit() {
            state.withLock { state in
                if state == .silent { restore() }
                state = .ended
            }
        }

        /// Restores the terminal before a stop; true if echo was off (the read is under way).
        func restoreForStop() -> Bool {
            state.withLock { state in
                guard state == .silent else { return false }
                restore()
                state = .stopped
                return true
            }
        }

        /// After a stop: echo off again and the prompt again, unless the read ended meanwhile.
        func resume() {
            state.withLock { state in
                guard state == .stopped else { return }
                var settings = silent
                _ = tcsetattr(descriptor, TCSAFLUSH, &settings)
                state = .silent
                Self.writeError(prompt)
            }
        }

        /// Puts back the original settings (anything typed and not yet read is discarded) and ends
        /// the line the user's unechoed Enter did not end.
        private func restore() {
            var settings = original
            while tcsetattr(descriptor, TCSAFLUSH, &settings) != 0 && errno == EINTR {}
            Self.writeError("\n")
        }

        /// Writes `text` to standard error with `write(2)` (safe from any thread, unbuffered).
        static func writeError(_ text: String) {
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let count = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return }
                bytes = bytes.dropFirst(count)
            }
        }
    }

    /// The signal sources watching a read, and each signal's C disposition from before. Used by
    /// the reading thread alone: the sources' handlers capture the session and the signal's
    /// number, never this object.
    final class SignalWatch {
        private var sources: [any DispatchSourceSignal] = []
        private var previous: [(signal: Int32, action: sigaction)] = []

        /// Watches the terminating signals and SIGTSTP, except those the process ignores, and
        /// returns once libdispatch has registered every one (its handler is then in place), or
        /// after 10 seconds at most (a read with a signal unwatched beats no read at all).
        init(session: Session) {
            let queue = DispatchQueue(label: "msal.terminal-secret.signals")
            let registered = DispatchGroup()
            for number in TerminalSecretReader.terminatingSignals + [SIGTSTP] {
                var action = sigaction()
                guard sigaction(number, nil, &action) == 0 else { continue }
                let handler = action.__sigaction_handler.sa_handler
                if unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
                previous.append((number, action))
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                if number == SIGTSTP {
                    source.setEventHandler { Self.stop(session) }
                } else {
                    source.setEventHandler { Self.terminate(number, session: session) }
                }
                registered.enter()
                source.setRegistrationHandler { registered.leave() }
                source.resume()
                sources.append(source)
            }
            _ = registered.wait(timeout: .now() + 10)
        }

        /// Puts back each signal's previous disposition, then stops watching.
        ///
        /// libdispatch installs its handler once per signal for the life of the process; a signal
        /// left with it and no source would be swallowed, so the previous disposition (the default
        /// action, for the `msal` command) comes back. A signal that arrives between the end of
        /// the read and this is handled by its source, which restores nothing (the read restored
        /// the terminal) and ends the process as the signal would.
        func stop() {
            for (number, action) in previous {
                var action = action
                _ = sigaction(number, &action, nil)
            }
            sources.forEach { $0.cancel() }
        }

        /// A terminating signal: restores the terminal, then ends the process with the signal's
        /// default action (the exit status a shell reports for it).
        private static func terminate(_ number: Int32, session: Session) {
            session.restoreForExit()
            _ = signal(number, SIG_DFL)
            unblockAndRaise(number)
            // A signal whose default action did not end the process: end it as the shell would report.
            _exit(128 + number)
        }

        /// SIGTSTP: restores the terminal, stops the process as the default action would, and when
        /// it continues, turns echo off and prompts again (if the read is still under way).
        private static func stop(_ session: Session) {
            let reading = session.restoreForStop()
            var watched = sigaction()
            _ = sigaction(SIGTSTP, nil, &watched)
            _ = signal(SIGTSTP, SIG_DFL)
            unblockAndRaise(SIGTSTP)
            // Continued: libdispatch's handler back, so a second Ctrl-Z is seen too.
            _ = sigaction(SIGTSTP, &watched, nil)
            if reading { session.resume() }
        }

        /// Raises `number` on this thread with it unblocked here (libdispatch's threads block
        /// signals), then blocks it again.
        private static func unblockAndRaise(_ number: Int32) {
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, number)
            var before = sigset_t()
            pthread_sigmask(SIG_UNBLOCK, &set, &before)
            _ = raise(number)
            pthread_sigmask(SIG_SETMASK, &before, nil)
        }
    }
}
