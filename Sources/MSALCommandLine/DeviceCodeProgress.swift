import Foundation
import MSAL
import Synchronization

/// Shows the device code message, then a progress indicator on standard error until the sign-in ends.
enum DeviceCodeProgress {
    static func run(
        _ body: (@escaping @Sendable (MSALDeviceCodeInfo) -> Void) async throws -> MSALResult
    ) async throws -> MSALResult {
        let progress = ProgressTicker()
        defer { progress.stop() }
        return try await body { info in
            CommandOutput.write(info.message, toStandardError: true)
            progress.start()
        }
    }
}

/// A line on standard error that grows while polling: a spinner on a terminal, a dot every five
/// seconds otherwise.
final class ProgressTicker: Sendable {
    private let task = LockedTask()

    func start() {
        let isTerminal = isatty(STDERR_FILENO) == 1
        task.replace(
            Task {
                let frames = ["|", "/", "-", "\\"]
                var tick = 0
                while !Task.isCancelled {
                    if isTerminal {
                        CommandOutput.writeRaw("\r\(frames[tick % frames.count]) waiting for the sign-in…")
                        try? await Task.sleep(nanoseconds: 250_000_000)
                    } else {
                        CommandOutput.writeRaw(tick == 0 ? "waiting for the sign-in" : ".")
                        try? await Task.sleep(nanoseconds: 5_000_000_000)
                    }
                    tick += 1
                }
            })
    }

    func stop() {
        if task.cancel() { CommandOutput.writeRaw("\n") }
    }
}

/// The ticker's task behind a lock.
final class LockedTask: Sendable {
    private let task = Mutex<Task<Void, Never>?>(nil)

    func replace(_ new: Task<Void, Never>) {
        task.withLock { current in
            current?.cancel()
            current = new
        }
    }

    /// Cancels the task; whether there was one.
    func cancel() -> Bool {
        task.withLock { current in
            guard let running = current else { return false }
            running.cancel()
            current = nil
            return true
        }
    }
}
