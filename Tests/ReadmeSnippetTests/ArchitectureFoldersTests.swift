import Foundation
import Testing

/// `docs/architecture.md`, "Every folder", holds: every folder of `Sources/` and `Tests/` has a row
/// there, and every row names a folder that exists. A new folder fails here until the document
/// says what it holds; a moved or removed one, until its row goes.
@Suite struct ArchitectureFoldersTests {
    /// Folder names that are made, never written: Python's bytecode caches and hidden folders.
    static func isGenerated(_ name: String) -> Bool {
        name.hasPrefix(".") || name == "__pycache__"
    }

    /// Every folder under `top` (`Sources` or `Tests`), as `top/…/` paths, generated ones left out.
    static func folders(under top: String) throws -> Set<String> {
        var found: Set<String> = []
        var pending = [top]
        while let folder = pending.popLast() {
            let url = RepositoryFiles.url(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: url.path) where !isGenerated(name) {
                var isDirectory: ObjCBool = false
                let path = folder + "/" + name
                guard FileManager.default.fileExists(atPath: RepositoryFiles.url(path).path, isDirectory: &isDirectory),
                    isDirectory.boolValue
                else { continue }
                found.insert(path + "/")
                pending.append(path)
            }
        }
        return found
    }

    /// The folders named by the first cell of each table row of the section "Every folder": a code
    /// span ending with `/`.
    static func documentedFolders(in text: String) -> [String] {
        guard let start = text.range(of: "\n## Every folder\n") else { return [] }
        let rest = text[start.upperBound...]
        let section = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        return section.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("| `") else { return nil }
            let cell = line.dropFirst(3).prefix { $0 != "`" }
            return cell.hasSuffix("/") ? String(cell) : nil
        }
    }

    @Test("Every folder of Sources/ and Tests/ has a row in docs/architecture.md, and every row a folder")
    func everyFolderHasARow() throws {
        let documented = Self.documentedFolders(in: try RepositoryFiles.text("docs/architecture.md"))
        let duplicates = Dictionary(grouping: documented, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        #expect(duplicates.isEmpty, "rows named twice: \(duplicates)")
        let actual = try Self.folders(under: "Sources").union(try Self.folders(under: "Tests"))
        #expect(actual.count > 80)
        let missing = actual.subtracting(documented).sorted()
        let stale = Set(documented).subtracting(actual).sorted()
        #expect(missing.isEmpty, "folders without a row in docs/architecture.md, \"Every folder\": \(missing)")
        #expect(stale.isEmpty, "rows in docs/architecture.md, \"Every folder\", naming no folder: \(stale)")
    }

    @Test("The row reader takes the first cell's folder only, within the section")
    func rowReader() {
        let text = """
            # Title
            | `Sources/Before/` | outside the section |
            ## Every folder
            | folder | what |
            |---|---|
            | `Sources/A/` | has `Sources/B/` in its text |
            | `File.swift` | not a folder |
            ## Next
            | `Sources/After/` | outside |
            """
        #expect(Self.documentedFolders(in: text) == ["Sources/A/"])
    }
}
