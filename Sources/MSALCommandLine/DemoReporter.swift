import Foundation
import MSALJSON

/// Prints the demo's progress: short lines for people, or one JSON object per step.
struct DemoReporter: Sendable {
    let format: OutputFormat

    /// The opening lines (text only).
    func introduction(_ lines: [String]) {
        guard format == .text else { return }
        emit(lines + [""])
    }

    /// A step is starting (text only, so a slow step shows what it is doing).
    func started(_ step: DemoStep, of total: Int) {
        guard format == .text else { return }
        emit(["\(step.number)/\(total)  \(step.title)"])
    }

    /// A step ended.
    func finished(_ step: DemoStep) {
        switch format {
        case .json:
            emit([JSONWriter.string(step.json)])
        case .text:
            var lines = step.lines.map { $0.isCheck ? "   ✓ \($0.text)" : "   - \($0.text)" }
            if let failure = step.failure {
                lines.append("   ✗ \(failure)")
            }
            emit(lines + [""])
        }
    }

    /// Writes `lines` to standard output, each ended by a newline. A closed output (`msal demo | head`)
    /// does not stop the demo: its exit status still tells the outcome.
    private func emit(_ lines: [String]) {
        try? FileHandle.standardOutput.write(contentsOf: Data(lines.map { $0 + "\n" }.joined().utf8))
    }

    /// The closing line (text only): every step passed, or which one failed.
    func conclusion(passed: Bool, steps: [DemoStep], total: Int, seconds: Double) {
        guard format == .text else { return }
        let elapsed = String(format: "%.1f", seconds)
        if passed {
            CommandOutput.write("All \(total) steps passed in \(elapsed) s.")
        } else if let failed = steps.first(where: { !$0.passed }) {
            CommandOutput.write(
                "The demo failed at step \(failed.number)/\(total) (\(failed.title)): \(failed.failure ?? "")", toStandardError: true)
        }
    }
}
