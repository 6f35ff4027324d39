/// A cache document together with its index, changed only through methods that keep both in step.
package struct TokenCacheContents: Sendable {
    /// The document as it will be written.
    package private(set) var document: TokenCacheDocument
    /// The alias groups the index was built with.
    package private(set) var aliases: CacheEnvironmentAliases
    /// The lookup tables.
    package private(set) var index: TokenCacheIndex
    /// Counts changes, so callers can tell whether an operation changed anything.
    package private(set) var revision = 0

    package init(document: TokenCacheDocument = TokenCacheDocument(), aliases: CacheEnvironmentAliases = .builtIn) {
        self.document = document
        self.aliases = aliases
        self.index = TokenCacheIndex(document: document, aliases: aliases)
    }

    /// Adds alias groups learned from instance discovery; rebuilds the index when a host changes group.
    package mutating func addAliases(_ hosts: [String], preferredCache: String) {
        if aliases.add(hosts, preferredCache: preferredCache) {
            index = TokenCacheIndex(document: document, aliases: aliases)
            revision += 1
        }
    }

    /// Replaces the whole document (after reading the file again).
    package mutating func replaceDocument(_ document: TokenCacheDocument) {
        self.document = document
        self.index = TokenCacheIndex(document: document, aliases: aliases)
        revision += 1
    }

    /// Stores `entry` under `key`. When an entry is already there, members `entry` does not set
    /// are kept (a newer writer's fields survive our update).
    package mutating func upsert(_ entry: CacheEntry, key: String, in section: CacheSection) {
        var merged = entry
        if let existing = document[section][key] {
            index.remove(key: key, entry: existing, section: section, aliases: aliases)
            if existing.opaque == nil {
                for field in existing.fields where !merged.fields.contains(where: { $0.name == field.name }) {
                    if Self.replacedFields.contains(field.name) { continue }
                    merged.fields.append(field)
                }
            }
        }
        document.sections[section.rawValue][key] = merged
        index.insert(key: key, entry: merged, section: section, aliases: aliases)
        revision += 1
    }

    /// Members that describe one issued token; an update never inherits them from the entry it replaces.
    private static let replacedFields: Set<String> = [
        "secret", "cached_at", "expires_on", "extended_expires_on", "ext_expires_on", "refresh_on", "token_type",
        "key_id", "target", "last_modification_time",
    ]

    /// Removes the entry under `key`; returns it.
    @discardableResult
    package mutating func remove(key: String, from section: CacheSection) -> CacheEntry? {
        guard let existing = document.sections[section.rawValue].removeValue(forKey: key) else { return nil }
        index.remove(key: key, entry: existing, section: section, aliases: aliases)
        revision += 1
        return existing
    }

    /// The entry under `key`.
    package func entry(_ key: String, in section: CacheSection) -> CacheEntry? {
        document.sections[section.rawValue][key]
    }
}
