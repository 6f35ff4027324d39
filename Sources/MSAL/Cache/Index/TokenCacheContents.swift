/// A cache document together with its index, changed only through methods that keep both in step.
package struct TokenCacheContents: Sendable {
    /// Identifies one cache's contents across revisions, so an account list remembered for one
    /// cache is never brought up to date from another cache's changes.
    package final class Lineage: Sendable {
        package init() {}
    }

    /// The document as it will be written.
    package private(set) var document: TokenCacheDocument
    /// The alias groups the index was built with.
    package private(set) var aliases: CacheEnvironmentAliases
    /// The lookup tables.
    package private(set) var index: TokenCacheIndex
    /// Counts changes, so callers can tell whether an operation changed anything.
    package private(set) var revision = 0
    /// The accounts the latest changes touched.
    package private(set) var changes = TokenCacheChangeLog(revision: 0)
    package let lineage = Lineage()

    /// Which contents and which revision of them a read saw: two reads that see the same version
    /// saw the same contents (``CacheHitMemo`` checks its answers against it).
    package struct Version: Sendable, Equatable {
        let lineage: Lineage
        let revision: Int

        /// Whether `contents` are still these contents at this revision (`self == contents.version`,
        /// without making the version).
        package func matches(_ contents: TokenCacheContents) -> Bool {
            lineage === contents.lineage && revision == contents.revision
        }

        /// Versions are equal when they are of the same contents at the same revision.
        package static func == (lhs: Version, rhs: Version) -> Bool {
            lhs.lineage === rhs.lineage && lhs.revision == rhs.revision
        }

        /// Whether `other` is an earlier revision of the same contents.
        package func isNewer(than other: Version) -> Bool {
            lineage === other.lineage && revision > other.revision
        }
    }

    /// The contents' version now.
    package var version: Version { Version(lineage: lineage, revision: revision) }

    package init(document: TokenCacheDocument = TokenCacheDocument(), aliases: CacheEnvironmentAliases = .builtIn) {
        self.document = document
        self.aliases = aliases
        self.index = TokenCacheIndex(document: document, aliases: aliases)
    }

    /// Reads a cache document and indexes it in the same pass (see
    /// ``TokenCacheDocument/parse(_:indexingWith:)``).
    ///
    /// - Throws: ``MSALFailure`` as ``TokenCacheDocument/init(parsing:)`` does.
    package init(parsing bytes: [UInt8], aliases: CacheEnvironmentAliases = .builtIn) throws(MSALFailure) {
        (document, index) = try TokenCacheDocument.parse(CacheSource(bytes: bytes), indexingWith: aliases)
        self.aliases = aliases
    }

    /// ``init(parsing:aliases:)`` on bytes read straight into a ``CacheSource``, which the contents
    /// then own (the reader compacts it in place).
    package init(parsing source: CacheSource, aliases: CacheEnvironmentAliases = .builtIn) throws(MSALFailure) {
        (document, index) = try TokenCacheDocument.parse(source, indexingWith: aliases)
        self.aliases = aliases
    }

    /// Adds alias groups learned from instance discovery; rebuilds the index when a host changes group.
    package mutating func addAliases(_ hosts: [String], preferredCache: String) {
        if aliases.add(hosts, preferredCache: preferredCache) {
            index = TokenCacheIndex(document: document, aliases: aliases)
            revision += 1
            changes.recordEverything(revision: revision)
        }
    }

    /// Replaces the whole document (after reading the file again).
    package mutating func replaceDocument(_ document: TokenCacheDocument) {
        self.document = document
        self.index = TokenCacheIndex(document: document, aliases: aliases)
        revision += 1
        changes.recordEverything(revision: revision)
    }

    /// Replaces the whole document with the one `parsed` read, keeping its index when it was built
    /// with the same alias groups as these contents have now.
    package mutating func replaceContents(with parsed: TokenCacheContents) {
        document = parsed.document
        index = parsed.aliases == aliases ? parsed.index : TokenCacheIndex(document: parsed.document, aliases: aliases)
        revision += 1
        changes.recordEverything(revision: revision)
    }

    /// Stores `entry` under `key`. When an entry is already there, members `entry` does not set
    /// are kept (a newer writer's fields survive our update).
    package mutating func upsert(_ entry: CacheEntry, key: String, in section: CacheSection) {
        var merged = entry
        let families = section == .appMetadata ? index.familyOfClient : nil
        var touched: [TokenCacheIndex.Change] = []
        if let existing = document.sections[section.rawValue][key] {
            touched.append(index.remove(key: key, entry: existing, section: section, aliases: aliases))
            if existing.opaque == nil {
                merged = Self.merge(entry, keeping: existing)
            }
        }
        document.sections[section.rawValue][key] = merged
        touched.append(index.insert(key: key, entry: merged, section: section, aliases: aliases))
        revision += 1
        if let families {
            if families != index.familyOfClient { changes.recordEverything(revision: revision) }
        } else {
            record(touched)
        }
    }

    /// `entry` followed by the members of `existing` it does not set, except those describing one
    /// issued token. Values stay slices of `existing`'s document where they were.
    private static func merge(_ entry: CacheEntry, keeping existing: CacheEntry) -> CacheEntry {
        var merged = entry
        let sameSource = existing.source == nil || entry.source == nil || entry.source === existing.source
        for member in existing.members
        where !replacedFields.contains(member.name) && !merged.members.contains(where: { $0.name == member.name }) {
            if case .slice = member.value, sameSource {
                merged.source = existing.source
                merged.members.append(member)
            } else if case .slice = member.value {
                // From another document than `entry`'s slices: keep the value itself.
                merged.members.append(CacheMember(field: CacheField(name: member.name, value: existing.value(of: member))))
            } else {
                merged.members.append(member)
            }
        }
        return merged
    }

    /// Members that describe one issued token; an update never inherits them from the entry it replaces.
    private static let replacedFields: Set<String> = [
        "secret", "cached_at", "expires_on", "extended_expires_on", "ext_expires_on", "refresh_on", "token_type",
        "key_id", "target", "last_modification_time", "user_assertion_hash",
    ]

    /// Removes the entry under `key`; returns it.
    @discardableResult
    package mutating func remove(key: String, from section: CacheSection) -> CacheEntry? {
        guard let existing = document.sections[section.rawValue].removeValue(forKey: key) else { return nil }
        let families = section == .appMetadata ? index.familyOfClient : nil
        let change = index.remove(key: key, entry: existing, section: section, aliases: aliases)
        revision += 1
        if let families {
            if families != index.familyOfClient { changes.recordEverything(revision: revision) }
        } else {
            record([change])
        }
        return existing
    }

    private mutating func record(_ touched: [TokenCacheIndex.Change]) {
        for change in touched {
            switch change {
            case .none: break
            case .account(let account): changes.record(account, revision: revision)
            case .everything: changes.recordEverything(revision: revision)
            }
        }
    }

    /// The entry under `key`.
    package func entry(_ key: String, in section: CacheSection) -> CacheEntry? {
        document.sections[section.rawValue][key]
    }
}
