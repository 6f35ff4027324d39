import MSALSupport

/// The lines the quick start's `updateLogging` wrote, from any thread.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])

    var all: [String] { lines.withLock { $0 } }

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    /// Waits (bounded: ten seconds of polling) for a line after the first `count` that starts with
    /// `prefix`, and returns it.
    func waitForLine(startingWith prefix: String, after count: Int) async throws -> String {
        for _ in 0..<2000 {
            if let line = lines.withLock({ $0.dropFirst(count).first { $0.hasPrefix(prefix) } }) { return line }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        throw MissingLogLine(prefix: prefix, lines: all)
    }
}

/// No line with the expected prefix appeared.
struct MissingLogLine: Error, CustomStringConvertible {
    var prefix: String
    var lines: [String]
    var description: String { "No line starting with \"\(prefix)\"; lines: \(lines)" }
}
