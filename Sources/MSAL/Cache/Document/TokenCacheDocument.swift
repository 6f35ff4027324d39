/// The unified token cache document that MSAL for Python, .NET, Java, Go and JavaScript share
/// (see `docs/token-cache.md`): five known sections of entries by key, plus whatever else a
/// newer or foreign writer put in the document, kept as it was.
package struct TokenCacheDocument: Sendable, Equatable {
    /// A top-level member swift-msal does not know, kept as its original JSON bytes.
    package struct RawMember: Sendable, Equatable {
        package var name: String
        package var raw: [UInt8]
    }

    /// The entries of each known section (indexed by ``CacheSection/rawValue``), by key.
    ///
    /// Keys are stored lower-cased (AppMetadata keys included, for matching); legacy mixed-case
    /// keys are normalized on read. The writer builds each AppMetadata key again from its entry,
    /// so the client id keeps the case it was written in.
    package var sections: [CacheSectionEntries]
    /// Top-level members other than the five sections, in document order.
    package var unknownMembers: [RawMember]

    /// An empty document.
    package init() {
        sections = Array(repeating: CacheSectionEntries(), count: CacheSection.allCases.count)
        unknownMembers = []
    }

    /// The entries of `section`, by key.
    package subscript(section: CacheSection) -> [String: CacheEntry] {
        get { sections[section.rawValue].dictionary }
        _modify { yield &sections[section.rawValue].mutableDictionary }
    }

    /// The number of entries in the known sections.
    package var entryCount: Int { sections.reduce(0) { $0 + $1.count } }
}
