import Foundation

/// A fenced code block of a Markdown file.
struct MarkdownCodeBlock: Sendable {
    /// The info string after the opening fence (`swift`, `sh`, …).
    var language: String
    /// The lines between the fences.
    var lines: [String]
    /// The 1-based line number of the opening fence.
    var line: Int
    /// The last source file (`Tests/<target>/<name>.swift`) the prose before the block names.
    var namedFile: String?

    /// The fenced blocks of `markdown`, in order.
    static func blocks(in markdown: String) -> [MarkdownCodeBlock] {
        var blocks: [MarkdownCodeBlock] = []
        var open: MarkdownCodeBlock?
        var lastNamed: String?
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var block = open {
                if trimmed == "```" {
                    blocks.append(block)
                    open = nil
                } else {
                    block.lines.append(String(line))
                    open = block
                }
            } else if trimmed.hasPrefix("```") {
                open = MarkdownCodeBlock(language: String(trimmed.dropFirst(3)), lines: [], line: index + 1, namedFile: lastNamed)
            } else if let named = line.matches(of: /Tests\/[A-Za-z]+\/[A-Za-z+]+\.swift/).last {
                lastNamed = String(named.output)
            }
        }
        return blocks
    }

    /// The lines without indentation and blank lines: what must appear, in this order and
    /// together, in the source that compiles the block.
    var significantLines: [String] { Self.significantLines(of: lines) }

    static func significantLines(of lines: some Sequence<some StringProtocol>) -> [String] {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Whether `source` contains this block's significant lines as one run.
    func appears(in source: String) -> Bool {
        let wanted = significantLines
        let have = Self.significantLines(of: source.split(separator: "\n", omittingEmptySubsequences: false))
        guard !wanted.isEmpty, wanted.count <= have.count else { return false }
        return (0...(have.count - wanted.count)).contains { start in
            have[start..<(start + wanted.count)].elementsEqual(wanted)
        }
    }
}
