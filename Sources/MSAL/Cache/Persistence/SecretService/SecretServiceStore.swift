import Foundation
import MSALJOSE
import MSALSupport

/// A token cache's storage in the Secret Service: the item, its signal file, and the storage that
/// answers when the Secret Service cannot (the app's ``MSALSecretServiceStorage/Fallback``).
///
/// Which storage answers is decided at the first use, with one lookup of the item, and kept for the
/// life of the cache: a cache never moves between storages behind the app's back. With ``Fallback/fail``
/// nothing is kept, so every use tries again until the Secret Service answers.
package final class SecretServiceStore: Sendable {
    /// The storage that answers.
    package enum Resolution: Sendable {
        /// The Secret Service item.
        case secretService(SecretServiceItem)
        /// The fallback to memory.
        case memory
        /// The fallback to a file.
        case file(TokenCacheFile)
    }

    /// The signal file; its lock files order every access, as the file storage's do.
    package let signal: TokenCacheFile
    /// The settings.
    package let settings: MSALSecretServiceStorage
    /// The schema name in use (given, or derived from the signal file's path).
    package let schemaName: String
    /// The file options for a fallback file.
    let fileOptions: TokenCacheFileOptions
    private let resolution = Mutex<Resolution?>(nil)
    private let logger = MSALLogger()

    /// The store for `settings`; touches nothing.
    ///
    /// - Throws: `cacheLocationUnavailable` when the signal file's path cannot be resolved;
    ///   `invalidParameter` for an unusable schema name or a negative or NaN `operationTimeout`.
    package init(settings: MSALSecretServiceStorage, fileOptions: TokenCacheFileOptions) throws {
        guard settings.operationTimeout >= 0 else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "Secret Service storage: operationTimeout must be a number of seconds, 0 or more (infinity: no deadline)")
        }
        let given = try settings.signalFilePath ?? Self.defaultSignalPath()
        signal = try TokenCacheFile(path: try Self.expandingHome(given), options: fileOptions)
        self.settings = settings
        self.fileOptions = fileOptions
        schemaName = try settings.schemaName ?? Hex.lowercase(MessageDigest.sha256(Array(given.utf8)))
    }

    /// `token_cache.signal` beside the default cache file.
    static func defaultSignalPath() throws -> String {
        let cacheFile = try TokenCacheFile.defaultPath()
        return String(cacheFile[..<cacheFile.lastIndex(of: "/")!]) + "/token_cache.signal"
    }

    /// `path` with a leading `~/` replaced by `$HOME` (or the passwd entry's home), as Python's `expanduser` does.
    static func expandingHome(_ path: String) throws -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        let environment = ProcessInfo.processInfo.environment
        guard let home = environment["HOME"].flatMap({ $0.hasPrefix("/") ? $0 : nil }) ?? TokenCacheFile.passwdHomeDirectory() else {
            throw MSALFailure.cacheLocationUnavailable("Secret Service signal file \(path): no home directory to expand ~ to")
        }
        return home + path.dropFirst()
    }

    /// The storage that answered, when it is decided; never blocks.
    package var resolvedIfKnown: Resolution? {
        resolution.withLock { $0 }
    }

    /// The storage that answers, deciding it now (one lookup on D-Bus, which blocks) on first use.
    ///
    /// - Throws: `cacheSecretServiceUnavailable` when there is no Secret Service and the fallback is
    ///   ``MSALSecretServiceStorage/Fallback/fail``; the fallback file's errors.
    package func resolved() throws -> Resolution {
        if let known = resolvedIfKnown { return known }
        let decided: Resolution
        switch probe() {
        case .success(let item):
            decided = .secretService(item)
        case .failure(let unavailable):
            decided = try fallback(from: unavailable)
        }
        return resolution.withLock { current in
            if let current { return current }
            current = decided
            return decided
        }
    }

    /// The item, when one lookup through it succeeds (whatever it finds); the error otherwise.
    private func probe() -> Result<SecretServiceItem, MSALFailure> {
        do throws(MSALFailure) {
            let item = try makeItem()
            _ = try item.lookup(limit: fileOptions.maximumFileSize)
            return .success(item)
        } catch {
            return .failure(error)
        }
    }

    /// The fallback storage after `error`, logged; rethrows `error` for ``MSALSecretServiceStorage/Fallback/fail``
    /// and for anything but `cacheSecretServiceUnavailable` (an oversized item is not a missing service).
    private func fallback(from error: MSALFailure) throws -> Resolution {
        guard error.internalCode == .cacheSecretServiceUnavailable else { throw error }
        switch settings.fallback {
        case .fail:
            throw error
        case .memory:
            logger.warning(
                "Token cache: the Secret Service is unavailable (\(error: error)); falling back to memory only, as configured: tokens will not outlive this process",
                correlationID: nil)
            return .memory
        case .file(let path):
            let file = try TokenCacheFile(path: try path ?? TokenCacheFile.defaultPath(), options: fileOptions)
            logger.warning(
                "Token cache: the Secret Service is unavailable (\(error: error)); falling back to the unencrypted file \(pii: file.path) (mode 0600), as configured",
                correlationID: nil)
            return .file(file)
        }
    }

    /// A new handle on the item.
    func makeItem() throws(MSALFailure) -> SecretServiceItem {
        let library: LibSecret
        if settings.librarySoname == LibSecret.soname {
            library = try LibSecret.shared.get()
        } else {
            library = try LibSecret(soname: settings.librarySoname)
        }
        return try SecretServiceItem(
            library: library, schemaName: schemaName, attributes: settings.attributes, label: settings.label,
            timeout: settings.operationTimeout)
    }

    /// The item a proof key of `kind` is kept under beside the cache (``ProofKeySecret``): the schema
    /// name with `.proof-key` appended, the same attributes plus `proof_key` = the kind.
    func proofKeyItem(of item: SecretServiceItem, kind: ProofKey.Kind) throws(MSALFailure) -> SecretServiceItem {
        var attributes = settings.attributes
        attributes["proof_key"] = kind.rawValue
        return try SecretServiceItem(
            library: item.library, schemaName: schemaName + ".proof-key", attributes: attributes,
            label: "swift-msal: proof-of-possession key (\(kind.rawValue))", timeout: item.timeout)
    }

    /// The item under which a document that is not a cache is kept aside: the schema name with
    /// `.corrupt` appended, the same attributes plus `quarantined` = `time`.
    func quarantineItem(of item: SecretServiceItem, time: String) throws(MSALFailure) -> SecretServiceItem {
        var attributes = settings.attributes
        attributes["quarantined"] = time
        return try SecretServiceItem(
            library: item.library, schemaName: schemaName + ".corrupt", attributes: attributes,
            label: "swift-msal: token cache set aside at \(time) (not a cache document)", timeout: item.timeout)
    }
}
