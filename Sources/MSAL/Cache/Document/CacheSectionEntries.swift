import MSALSupport

/// The entries of one section of a ``TokenCacheDocument``, by key.
///
/// A section read from a document keeps its entries as they were read, in order, and makes its
/// table by key the first time an entry is looked up by key or the section changes. Reading a
/// 10,000-account document put 40,000 entries into four such tables, a fifth of the load, and a
/// call that only reads through the index (a silent request answered from the cache, an account
/// list) never looks an entry up by key. The reader makes sure the entries it hands over have
/// distinct keys (``init(read:)``).
package struct CacheSectionEntries: Sendable, Equatable {
    /// One entry and its key.
    package struct KeyedEntry: Sendable {
        package var key: String
        package var entry: CacheEntry

        package init(key: String, entry: CacheEntry) {
            self.key = key
            self.entry = entry
        }
    }

    /// Entries as read, and their table once someone asked for it. Shared by the copies of a
    /// document (it never changes: a change makes the section a table of its own first).
    private final class Read: @unchecked Sendable {
        // @unchecked Sendable: `entries` is a `let`; `keyed` is zero or, once, the bits of a +1
        // reference to an immutable `Keyed`, stored by one compare-and-exchange with release
        // ordering and read with acquire ordering, released in `deinit`. (An `Atomic<UInt>`, not
        // `AtomicLazyReference`, whose generic `load()` was not specialized here and looked up its
        // metadata on every call: a third of serializing a one-account document.)
        let entries: [KeyedEntry]
        private let keyed = Atomic<UInt>(0)

        init(_ entries: [KeyedEntry]) {
            self.entries = entries
        }

        deinit {
            let bits = keyed.load(ordering: .acquiring)
            if bits != 0 { Unmanaged<Keyed>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
        }

        /// The table, made once; two threads asking at once may both make it, and both get the
        /// one stored first.
        var table: [String: CacheEntry] {
            let bits = keyed.load(ordering: .acquiring)
            if bits != 0 { return Unmanaged<Keyed>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue().table }
            var table: [String: CacheEntry] = [:]
            table.reserveCapacity(entries.count)
            for entry in entries { table[entry.key] = entry.entry }
            let made = Unmanaged.passRetained(Keyed(table))
            let (stored, found) = keyed.compareExchange(
                expected: 0, desired: UInt(bitPattern: made.toOpaque()), ordering: .acquiringAndReleasing)
            if stored { return table }
            made.release()
            return Unmanaged<Keyed>.fromOpaque(UnsafeRawPointer(bitPattern: found)!).takeUnretainedValue().table
        }
    }

    private final class Keyed: Sendable {
        let table: [String: CacheEntry]

        init(_ table: [String: CacheEntry]) {
            self.table = table
        }
    }

    private var read: Read?
    /// The entries when `read` is `nil`.
    private var table: [String: CacheEntry]

    /// No entries.
    package init() {
        table = [:]
    }

    /// The entries of `table`.
    package init(_ table: [String: CacheEntry]) {
        self.table = table
    }

    /// The entries a reader read, in order; their keys must be distinct (a later one would
    /// replace an earlier one in the table).
    package init(read entries: [KeyedEntry]) {
        read = Read(entries)
        table = [:]
    }

    /// The entries by key.
    package var dictionary: [String: CacheEntry] { read?.table ?? table }

    /// The entries by key, to change in place.
    package var mutableDictionary: [String: CacheEntry] {
        get { dictionary }
        _modify {
            makeTable()
            yield &table
        }
    }

    /// The number of entries.
    package var count: Int { read?.entries.count ?? table.count }

    /// Whether there are none.
    package var isEmpty: Bool { count == 0 }

    /// The entry under `key`; setting `nil` removes it.
    package subscript(key: String) -> CacheEntry? {
        get { dictionary[key] }
        set {
            makeTable()
            table[key] = newValue
        }
    }

    /// Removes the entry under `key`; returns it.
    @discardableResult
    package mutating func removeValue(forKey key: String) -> CacheEntry? {
        makeTable()
        return table.removeValue(forKey: key)
    }

    /// Calls `body` with every entry: as read, in reading order, without making the table, or in the
    /// table's order.
    package func forEach(_ body: (String, CacheEntry) throws -> Void) rethrows {
        if let read {
            for entry in read.entries { try body(entry.key, entry.entry) }
        } else {
            for (key, entry) in table { try body(key, entry) }
        }
    }

    /// Sections are equal when their entries by key are.
    package static func == (lhs: CacheSectionEntries, rhs: CacheSectionEntries) -> Bool {
        lhs.count == rhs.count && lhs.dictionary == rhs.dictionary
    }

    private mutating func makeTable() {
        guard let read else { return }
        table = read.table
        self.read = nil
    }
}
