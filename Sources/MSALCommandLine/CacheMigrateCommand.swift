import ArgumentParser
import Foundation
import MSAL
import MSALJSON

/// `msal cache migrate --to secret-service`
struct CacheMigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Move a token cache file into the Secret Service, then overwrite and remove the file.")

    /// Where a cache can be moved to.
    enum Destination: String, ExpressibleByArgument, CaseIterable {
        case secretService = "secret-service"
    }

    @Option(help: "Where to move the cache: secret-service.")
    var to: Destination

    @Option(
        name: .customLong("cache"),
        help: ArgumentHelp(
            "The token cache file to move (default: $XDG_CACHE_HOME/msal/token_cache.json or ~/.cache/msal/token_cache.json).",
            valueName: "file"))
    var path: String?

    @Option(
        name: .customLong("signal-file"),
        help: ArgumentHelp(
            "The Secret Service cache's signal file (default: token_cache.signal beside the default cache file).", valueName: "file"))
    var signalFile: String?

    @Option(help: "Output format: text or json.")
    var output: OutputFormat = .text

    func run() async throws {
        do {
            let source = try TokenCacheFile(path: CacheFileOptions.absolute(path) ?? TokenCacheFile.defaultPath())
            let signal = signalFile.map { $0.hasPrefix("~") ? $0 : CacheFileOptions.absolute($0)! }
            let destination = try TokenCache(
                config: MSALCacheConfig(storage: .secretService(MSALSecretServiceStorage(signalFilePath: signal, fallback: .fail))))
            let moved = try await BlockingWork.shared.run { try destination.moveFileIntoSecretService(source) }
            switch output {
            case .json:
                CommandOutput.writeJSON(
                    .object([
                        JSONMember(name: "from", value: .string(source.path)),
                        JSONMember(name: "file_found", value: .bool(moved.fileFound)),
                        JSONMember(name: "moved_entries", value: .integer(moved.entries)),
                        JSONMember(name: "to", value: .string(destination.storageDescription)),
                        JSONMember(name: "left_in_place", value: .array(moved.leftovers.map { .string($0) })),
                    ]))
            case .text:
                if moved.fileFound {
                    CommandOutput.write(
                        "Moved \(moved.entries) entries from \(source.path) to \(destination.storageDescription); the file was overwritten and removed."
                    )
                } else {
                    CommandOutput.write("No cache file at \(source.path): nothing to move.")
                }
                if !moved.leftovers.isEmpty {
                    CommandOutput.write(
                        "These files beside it may still hold tokens; check and delete them: \(moved.leftovers.joined(separator: ", "))")
                }
            }
        } catch {
            throw CommandOutput.fail(error, format: output)
        }
    }
}
