import Foundation

/// Locates files in the package's `Fixtures/` folder by a path relative to this source file.
enum FixtureLoader {
    static let fixturesDirectory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func url(_ relativePath: String) -> URL {
        fixturesDirectory.appendingPathComponent(relativePath)
    }

    static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: url(relativePath))
    }

    /// The `.json` files under `relativeDirectory`, recursively, sorted by path.
    static func jsonFiles(under relativeDirectory: String) throws -> [URL] {
        let root = url(relativeDirectory)
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        return enumerator.compactMap { $0 as? URL }
            .filter { $0.pathExtension == "json" }
            .sorted { $0.path < $1.path }
    }
}
