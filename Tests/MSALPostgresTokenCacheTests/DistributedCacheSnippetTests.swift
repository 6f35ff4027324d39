import Foundation
import Testing

/// docs/distributed-cache.md shows the code that DistributedCacheSnippet.swift compiles.
@Suite struct DistributedCacheSnippetTests {
    /// The repository's root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("The Swift block of docs/distributed-cache.md is the code DistributedCacheSnippet.swift compiles")
    func snippetMatches() throws {
        let document = try String(contentsOf: Self.root.appendingPathComponent("docs/distributed-cache.md"), encoding: .utf8)
        let source = try String(
            contentsOf: Self.root.appendingPathComponent("Tests/MSALPostgresTokenCacheTests/DistributedCacheSnippet.swift"), encoding: .utf8
        )
        let compiled = try #require(Self.between(source, "// docs/distributed-cache.md begins\n", "    // docs/distributed-cache.md ends"))
        let shown = try #require(
            Self.between(document, "```swift\nimport MSAL\nimport MSALPostgresTokenCache\nimport PostgresNIO\n\n", "```"))
        let unindented = compiled.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("    ") ? String(line.dropFirst(4)) : String(line)
        }.joined(separator: "\n")
        #expect(unindented == shown)
    }

    static func between(_ text: String, _ start: String, _ end: String) -> String? {
        guard let from = text.range(of: start), let to = text.range(of: end, range: from.upperBound..<text.endIndex) else { return nil }
        return String(text[from.upperBound..<to.lowerBound])
    }
}
