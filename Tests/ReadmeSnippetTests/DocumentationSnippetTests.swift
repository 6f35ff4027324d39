import Foundation
import MSAL
import Testing

/// README.md and the DocC articles cannot drift from the code: every Swift block they show is
/// compiled (and, where it can run offline, run) in this target, and the commands they give are the
/// ones CI runs.
@Suite struct DocumentationSnippetTests {
    static let snippetFolder = "Tests/ReadmeSnippetTests"
    static let articleFolder = "Sources/MSAL/MSAL.docc"

    /// The Swift sources of this target, by repository path.
    static func snippetSources() throws -> [String: String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: RepositoryFiles.url(snippetFolder).path)
        var sources: [String: String] = [:]
        for name in names where name.hasSuffix(".swift") {
            sources["\(snippetFolder)/\(name)"] = try RepositoryFiles.text("\(snippetFolder)/\(name)")
        }
        return sources
    }

    @Test func everySwiftBlockOfTheREADMELivesInTheFileItNames() throws {
        let blocks = MarkdownCodeBlock.blocks(in: try RepositoryFiles.text("README.md")).filter { $0.language == "swift" }
        #expect(blocks.count >= 6)
        let sources = try Self.snippetSources()
        for block in blocks {
            guard let named = block.namedFile, named.hasPrefix("\(Self.snippetFolder)/") else {
                Issue.record(
                    "README.md:\(block.line): the text before a Swift block must name the file of \(Self.snippetFolder) that compiles it")
                continue
            }
            let source = try #require(sources[named], "README.md:\(block.line) names \(named), which does not exist")
            let found = block.appears(in: source)
            #expect(found, "README.md:\(block.line): the block is not in \(named) as written")
        }
    }

    @Test func everySwiftBlockOfTheDocCArticlesIsCompiledHere() throws {
        let articles = try FileManager.default.contentsOfDirectory(atPath: RepositoryFiles.url(Self.articleFolder).path)
            .filter { $0.hasSuffix(".md") }.sorted()
        #expect(articles.contains("GettingStarted.md"))
        #expect(articles.contains("MigratingFromMSALForiOS.md"))
        let sources = try Self.snippetSources()
        var count = 0
        for article in articles {
            let text = try RepositoryFiles.text("\(Self.articleFolder)/\(article)")
            for block in MarkdownCodeBlock.blocks(in: text) where block.language == "swift" {
                count += 1
                let found = sources.values.contains { block.appears(in: $0) }
                #expect(found, "\(article):\(block.line): the block is compiled nowhere in \(Self.snippetFolder)")
            }
        }
        #expect(count >= 4)
    }

    @Test func theREADMEsCommandsAreTheOnesCIRuns() throws {
        let readme = try RepositoryFiles.text("README.md")
        let testCommand = "bash scripts/test.sh"
        let shellLines = MarkdownCodeBlock.blocks(in: readme).filter { $0.language == "sh" }.flatMap(\.lines)
        #expect(shellLines.contains(testCommand))
        #expect(shellLines.contains("bash scripts/setup.sh && swift run msal demo"))
        let ci = try RepositoryFiles.text(".ci/run").split(separator: "\n").map(String.init)
        #expect(ci.contains(testCommand))
    }

    @Test func theManifestExcerptMatchesThisPackage() throws {
        let manifest = try RepositoryFiles.text("Package.swift")
        let version = try #require(readmeManifestExcerpt.firstMatch(of: /from: "([0-9.]+)"/)).output.1
        #expect(String(version) == MSALVersion)
        #expect(readmeManifestExcerpt.contains(#".package(url: "https://github.com/swift-msal/swift-msal", from: "\#(MSALVersion)")"#))
        #expect(manifest.contains(#"name: "swift-msal""#))
        #expect(readmeManifestExcerpt.contains(#".product(name: "MSAL", package: "swift-msal")"#))
        #expect(manifest.contains(#".library(name: "MSAL", targets: ["MSAL"])"#))
    }

    @Test func theMarkdownReaderFindsBlocksAndRuns() {
        let markdown = """
            Text before, about `Tests/Other/Y.swift`.
            Compiled in `Tests/ReadmeSnippetTests/X.swift`
            and run.

            ```swift
            let a = 1

                let b = 2
            ```
            ```sh
            echo hi
            ```
            """
        let blocks = MarkdownCodeBlock.blocks(in: markdown)
        #expect(blocks.map(\.language) == ["swift", "sh"])
        #expect(blocks[0].namedFile == "Tests/ReadmeSnippetTests/X.swift")
        #expect(blocks[1].namedFile == "Tests/ReadmeSnippetTests/X.swift")
        #expect(blocks[0].line == 5)
        #expect(blocks[0].appears(in: "func f() {\n    let a = 1\n    let b = 2\n}"))
        #expect(!blocks[0].appears(in: "let a = 1\nlet c = 3\nlet b = 2"))
        #expect(!blocks[0].appears(in: "let b = 2\nlet a = 1"))
    }
}
