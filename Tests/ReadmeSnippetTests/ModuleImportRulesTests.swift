import Foundation
import Testing

/// `docs/architecture.md`, "What may import what", holds: every `import` of every source file is one
/// its module may use. A new dependency between modules fails here until the table (and this list)
/// say why.
@Suite struct ModuleImportRulesTests {
    /// System modules any target may import.
    static let system: Set<String> = ["Foundation", "FoundationEssentials", "Glibc", "Musl", "Darwin", "Dispatch"]

    /// What each module of `Sources/` may import besides the system modules.
    static let allowed: [String: Set<String>] = [
        "MSALSupport": ["Synchronization"],
        "MSALJSON": ["MSALSupport"],
        "MSALDBus": ["MSALSupport"],
        "MSALJOSE": ["MSALJSON", "MSALSupport", "COpenSSL"],
        "MSAL": ["MSALDBus", "MSALJOSE", "MSALJSON", "MSALSupport", "CCurl", "NIOCore", "NIOPosix", "NIOHTTP1", "Logging"],
        "MSALURLSession": ["MSAL", "MSALJOSE", "MSALSupport", "FoundationNetworking"],
        "MSALAsyncHTTPClient": ["MSAL", "MSALJOSE", "MSALSupport", "AsyncHTTPClient", "NIOCore", "NIOHTTP1", "NIOSSL"],
        "MSALTesting": ["MSAL", "MSALJOSE", "MSALJSON", "MSALSupport", "NIOCore", "NIOPosix", "FoundationNetworking"],
        "MSALEmulator": ["MSALDBus", "MSALJOSE", "MSALJSON", "MSALSupport", "NIOCore", "NIOPosix", "NIOHTTP1"],
        "MSALCommandLine": [
            "MSAL", "MSALJOSE", "MSALJSON", "MSALSupport", "MSALTesting", "MSALEmulator", "ArgumentParser", "Logging",
            "FoundationNetworking",
        ],
        "MSALStressWorker": ["MSAL", "MSALEmulator", "MSALSupport"],
        "MSALPostgresTokenCache": ["MSAL", "MSALJOSE", "MSALSupport", "NIOCore", "PostgresNIO", "Logging"],
        "MSALPostgresWorker": ["MSAL", "MSALPostgresTokenCache", "MSALSupport", "PostgresNIO"],
    ]

    /// The module names after `import` (with any `@testable`, `@_spi(…)`, `public` or kind keyword).
    static func imports(in text: String) -> [String] {
        text.split(separator: "\n").compactMap { line -> String? in
            var words = line.split(separator: " ").map(String.init)
            while let first = words.first, first.hasPrefix("@") || first == "public" || first == "package" || first == "internal" {
                words.removeFirst()
            }
            guard words.first == "import", words.count >= 2 else { return nil }
            let name =
                words.count >= 3 && ["struct", "class", "enum", "protocol", "func", "typealias", "var", "let"].contains(words[1])
                ? words[2] : words[1]
            return String(name.split(separator: ".").first ?? "")
        }
    }

    @Test func everySourceImportsOnlyWhatItsModuleMay() throws {
        let sources = RepositoryFiles.url("Sources")
        let modules = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { !$0.hasPrefix("C") }
        #expect(Set(modules) == Set(Self.allowed.keys), "a module was added or removed: update this table and docs/architecture.md")
        var checked = 0
        for module in modules {
            let allowed = (Self.allowed[module] ?? []).union(Self.system)
            let enumerator = FileManager.default.enumerator(atPath: sources.appendingPathComponent(module).path)
            while let file = enumerator?.nextObject() as? String {
                guard file.hasSuffix(".swift") else { continue }
                let text = try RepositoryFiles.text("Sources/\(module)/\(file)")
                for name in Self.imports(in: text) {
                    #expect(allowed.contains(name), "Sources/\(module)/\(file) imports \(name), which \(module) may not")
                }
                checked += 1
            }
        }
        #expect(checked > 250)
    }

    @Test func theImportParserReadsEveryForm() {
        let text = """
            import Foundation
            @testable import MSAL
            @_spi(Fuzzing) import MSALJOSE
            public import JWTKit
            import struct NIOCore.ByteBuffer
            // import Nothing
            """
        #expect(Self.imports(in: text) == ["Foundation", "MSAL", "MSALJOSE", "JWTKit", "NIOCore"])
    }
}
