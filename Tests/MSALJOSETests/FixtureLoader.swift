import Foundation

/// Loads files from the package's `Fixtures/` folder by a path relative to this source file.
enum FixtureLoader {
    static let fixturesDirectory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: fixturesDirectory.appendingPathComponent(relativePath))
    }

    static func bytes(_ relativePath: String) throws -> [UInt8] {
        [UInt8](try data(relativePath))
    }

    /// A text file without its trailing newline.
    static func text(_ relativePath: String) throws -> String {
        String(decoding: try data(relativePath), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
