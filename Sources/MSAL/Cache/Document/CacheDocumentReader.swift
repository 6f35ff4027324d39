import MSALJSON
import MSALSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads a unified cache document in one pass straight into ``TokenCacheDocument`` entries: the
/// cache's schema mapping over the package's one JSON reader, ``JSONScanner``.
///
/// The scanner validates (RFC 8259 grammar, strict UTF-8, escapes and surrogate pairs, nothing after
/// the value, the caps of ``JSONLimits``) exactly as it does for `JSONDocument`; this reader builds
/// no intermediate tape: an entry's string members become ``CacheSlice``s of the source (no
/// `String` per member), and member names the schema defines are shared constants.
///
/// When the source is owned (the cache file was read straight into it), each string value an entry
/// keeps is moved, as soon as it is read, to the front of the source's buffer (after the values
/// before it), and the rest of the buffer is given back at the end: the loaded cache holds its
/// values, not the document's names, keys, punctuation and indentation. Moving is safe in place:
/// the values kept so far are never longer than the bytes read so far, so a value only ever moves
/// towards the start, over bytes already read. A shared source (bytes an app handed over) is read
/// as it is.
struct CacheDocumentReader {
    /// Why reading stopped.
    enum Failure: Error {
        /// Not JSON, or over one of the limits.
        case json(JSONScanner.Failure)
        /// A known section that is not an object.
        case section(String)
        /// The root is valid JSON but not an object.
        case notAnObject
    }

    private var scanner: JSONScanner
    /// The same bytes as the scanner's, writable, when the source is owned: where kept values are
    /// moved to. `nil` for a shared source, whose slices stay where the values were read.
    private let output: UnsafeMutablePointer<UInt8>?
    /// How many bytes of kept values are at the front of `output`.
    private var written = 0
    /// Where the pages given back so far end (see ``releaseConsumed()``).
    private var released = 0
    /// The unit of memory ``releaseConsumed()`` gives back.
    private var granule = CacheDocumentReader.pageSize
    /// The index being built along with the document, while each entry is still in the cache.
    private var indexing: Indexing?

    /// An index built entry by entry as they are read.
    struct Indexing {
        var builder: TokenCacheIndexBuilder
        /// Sections where an entry read (and indexed) was then replaced or dropped (a duplicate
        /// key, a legacy spelling): indexed again from the final entries at the end.
        var stale: Set<CacheSection> = []

        init(aliases: CacheEnvironmentAliases, expectedAccounts: Int) {
            builder = TokenCacheIndexBuilder(aliases: aliases, expectedAccounts: expectedAccounts)
        }

        mutating func add(key: String, entry: CacheEntry, section: CacheSection) {
            builder.add(key: key, entry: entry, section: section)
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, output: UnsafeMutablePointer<UInt8>?, start: Int, limits: JSONLimits) {
        scanner = JSONScanner(bytes: bytes, start: start, limits: limits)
        self.output = output
    }

    /// Reads the source's bytes from `start` into `document` (an empty document); with `aliases`,
    /// also returns the index of the entries read, built as they are read. Compacts an owned source
    /// in place (the kept values at its front): its bytes are not a document any more afterwards,
    /// and after a failure they are not to be used at all.
    static func read(
        _ source: CacheSource, from start: Int, limits: JSONLimits, into document: inout TokenCacheDocument,
        indexingWith aliases: CacheEnvironmentAliases? = nil
    ) throws(Failure) -> TokenCacheIndex? {
        var kept = 0
        // The buffer pointer lives only inside this closure; the reader never escapes it.
        var compacted = false
        let result: Result<TokenCacheIndex?, Failure> = source.withBytesForReading { buffer, output in
            var reader = CacheDocumentReader(bytes: buffer, output: output, start: start, limits: limits)
            reader.granule = max(source.releaseGranule, pageSize)
            // About one account per 4 KB of document (6.4 KB in MSAL for Python's form): room for
            // them up front instead of growing (and rehashing) the tables many times.
            reader.indexing = aliases.map { Indexing(aliases: $0, expectedAccounts: min(buffer.count / 4096, 1 << 20)) }
            do throws(Failure) {
                try reader.readDocument(source: source, into: &document)
            } catch {
                return .failure(error)
            }
            kept = reader.written
            compacted = output != nil
            guard var indexing = reader.indexing, let aliases else { return .success(nil) }
            var index = indexing.builder.finish()
            for section in CacheSection.allCases where indexing.stale.contains(section) {
                index.removeAll(section)
                for (key, entry) in document[section] {
                    index.insert(key: key, entry: entry, section: section, aliases: aliases)
                }
            }
            return .success(index)
        }
        let index = try result.get()
        if compacted { source.truncate(to: kept) }
        return index
    }

    // MARK: Structure

    private mutating func readDocument(source: CacheSource, into document: inout TokenCacheDocument) throws(Failure) {
        let shape: Failure?
        do throws(JSONScanner.Failure) {
            shape = try readRoot(source: source, into: &document)
        } catch {
            throw .json(error)
        }
        if let shape { throw shape }
    }

    /// The document's root: `nil` when it was read, or why it is valid JSON but not a cache
    /// document (reading stops there).
    private mutating func readRoot(
        source: CacheSource, into document: inout TokenCacheDocument
    ) throws(JSONScanner.Failure) -> Failure? {
        try scanner.beginDocument()
        guard scanner.current == UInt8(ascii: "{") else {
            try scanner.skipValue(depth: 0)
            try scanner.endDocument()
            return .notAnObject
        }
        if try scanner.enterContainer(depth: 1) {
            repeat {
                let name = try scanner.memberName()
                let sectionName = string(name)
                if let section = CacheSection(name: sectionName) {
                    guard scanner.current == UInt8(ascii: "{") else { return .section(sectionName) }
                    try readSection(section, source: source, into: &document.sections[section.rawValue])
                } else {
                    let raw = try rawValue(depth: 1)
                    document.unknownMembers.removeAll { $0.name == sectionName }
                    document.unknownMembers.append(TokenCacheDocument.RawMember(name: sectionName, raw: raw))
                }
            } while try scanner.nextMember()
        }
        try scanner.endDocument()
        return nil
    }

    /// Moves `length` bytes read at `start` to the end of the kept values. `written <= start`
    /// always (every kept byte was read before `start`), so this only overwrites bytes already read.
    @inline(__always)
    private mutating func keep(_ start: Int, _ length: Int) {
        // Safe: `output` is the scanner's buffer (non-nil once a value was read from it), and both
        // ranges lie inside it: `written + length <= start + length <= count`.
        if written != start, length > 0, let output {
            memmove(output + written, output + start, length)
        }
        written += length
    }

    /// Gives the memory of whole pages between the kept values and the scanner's position back to
    /// the system (`MADV_DONTNEED`), once a megabyte of them has piled up (whole 2 MB pages of a
    /// buffer backed by them, ``CacheSource/releaseGranule``, which giving back part of one would
    /// split into 512 small ones, each faulted in again when a value is moved onto it): everything there has been
    /// read and either moved or copied, so while a large document loads, its resident size shrinks
    /// as its entries grow. A page given back reads as zeros if a later value is moved onto it.
    /// Called between entries, when no value read is still waiting to be moved.
    private mutating func releaseConsumed() {
        let page = granule
        guard scanner.position - max(written, released) >= 1 << 20, let output else { return }
        // Page boundaries as offsets from `output` (which need not be page-aligned).
        let address = Int(bitPattern: output)
        let from = (address + max(written, released) + page - 1) / page * page
        let to = (address + scanner.position) / page * page
        guard to - from >= 1 << 20 else { return }
        _ = madvise(UnsafeMutableRawPointer(bitPattern: from), to - from, MADV_DONTNEED)
        released = to - address
    }

    /// The system's page size.
    static let pageSize = max(Int(sysconf(Int32(_SC_PAGESIZE))), 4096)

    /// Validates the value at the scanner's position (inside a container of depth `depth`) and
    /// returns its bytes.
    private mutating func rawValue(depth: Int) throws(JSONScanner.Failure) -> [UInt8] {
        let valueStart = scanner.position
        try scanner.skipValue(depth: depth)
        return Array(scanner.bytes[valueStart..<scanner.position])
    }

    /// One known section: its entries by lower-cased key. When a legacy mixed-case key and its
    /// lower-case form are both present, the lower-case entry wins; otherwise the last one does.
    /// A section written twice is merged, its later entries winning under the same key.
    private mutating func readSection(
        _ section: CacheSection, source: CacheSource, into entries: inout CacheSectionEntries
    ) throws(JSONScanner.Failure) {
        var dropped = false
        if entries.isEmpty {
            try readEntries(of: section, source: source, into: &entries, dropped: &dropped)
        } else {
            var fresh = CacheSectionEntries()
            try readEntries(of: section, source: source, into: &fresh, dropped: &dropped)
            var merged = entries.dictionary
            merged.merge(fresh.dictionary) { _, new in
                dropped = true
                return new
            }
            entries = CacheSectionEntries(merged)
        }
        // The index has every entry read: rebuild it from the section's final entries.
        if dropped { indexing?.stale.insert(section) }
    }

    /// Reads a section's entries into `entries` (empty), each indexed as soon as it is read (its
    /// key and members are still in the processor's cache). Sets `dropped` when an entry read was
    /// replaced or left out, or may have been (a legacy spelling).
    ///
    /// While every key is in lower case (always, in a document the MSALs wrote), the entries are
    /// kept in reading order (``CacheSectionEntries``: the table by key is made when first
    /// needed), and a 64-bit hash of each key is noted; at the end of the section, the hashes,
    /// bucketed, show whether any key may be repeated (sequential passes, where a table of the keys
    /// seen took a random probe per entry). If one may be, or from the first legacy key on, the
    /// section becomes a table by key with the rules for those.
    private mutating func readEntries(
        of section: CacheSection, source: CacheSource, into entries: inout CacheSectionEntries, dropped: inout Bool
    ) throws(JSONScanner.Failure) {
        guard try scanner.enterContainer(depth: 2) else { return }
        // Room for about one entry per 2 KB of what is left to read (an access token takes 2–3 KB
        // in MSAL for Python's form), so a large section rarely grows.
        let expected = min((scanner.count - scanner.position) / 2048, 1 << 20)
        var read: [CacheSectionEntries.KeyedEntry] = []
        read.reserveCapacity(expected)
        var hashes: [UInt64] = []
        hashes.reserveCapacity(expected)
        let seed = CacheText.hashSeed
        var table: [String: CacheEntry]?
        var legacy = Set<String>()  // keys whose entry placed so far has a legacy spelling
        repeat {
            let name = try scanner.memberName()
            let (key, exact) = lowercasedKey(name)
            let entry: CacheEntry
            if scanner.current == UInt8(ascii: "{") {
                entry = try readEntry(source: source)
            } else {
                entry = CacheEntry(opaque: try rawValue(depth: 2))
            }
            indexing?.add(key: key, entry: entry, section: section)
            releaseConsumed()
            if table == nil {
                if exact {
                    var hashed = key
                    hashes.append(hashed.withUTF8 { CacheText.foldedHash($0, seed: seed) })
                    read.append(CacheSectionEntries.KeyedEntry(key: consume key, entry: consume entry))
                    continue
                }
                table = Self.table(read, expected: expected, dropped: &dropped)
                read = []
            }
            if exact {
                // The key and entry move into the table (no retain of either).
                let legacyKey = legacy.isEmpty ? nil : key
                if table!.updateValue(consume entry, forKey: consume key) != nil {
                    dropped = true
                    if let legacyKey { legacy.remove(legacyKey) }
                }
            } else {
                // A legacy spelling never replaces the lower-case one, whichever comes first.
                dropped = true
                if table![key] == nil || legacy.contains(key) {
                    table![key] = entry
                    legacy.insert(key)
                }
            }
        } while try scanner.nextMember()
        if table == nil, Self.mayRepeat(hashes) {
            table = Self.table(read, expected: expected, dropped: &dropped)
            read = []
        }
        entries = table.map { CacheSectionEntries($0) } ?? CacheSectionEntries(read: read)
    }

    /// Entries read with lower-case keys, by key, the last one winning under a repeated key (which
    /// sets `dropped`).
    private static func table(_ read: [CacheSectionEntries.KeyedEntry], expected: Int, dropped: inout Bool) -> [String: CacheEntry] {
        var table: [String: CacheEntry] = [:]
        table.reserveCapacity(max(expected, read.count))
        for entry in read where table.updateValue(entry.entry, forKey: entry.key) != nil {
            dropped = true
        }
        return table
    }

    /// Whether two of `hashes` are equal: a counting sort on their top bits into about one bucket
    /// per hash, then the few hashes of each bucket compared (a general sort of 10,000 took 2 ms).
    static func mayRepeat(_ hashes: [UInt64]) -> Bool {
        let count = hashes.count
        guard count > 1 else { return false }
        let bits = min(20, max(4, Int.bitWidth - count.leadingZeroBitCount))
        let shift = UInt64(64 - bits)
        var starts = [Int32](repeating: 0, count: (1 << bits) + 1)
        for hash in hashes { starts[Int(hash >> shift) + 1] += 1 }
        for bucket in 0..<(1 << bits) { starts[bucket + 1] += starts[bucket] }
        var next = starts
        var placed = [UInt64](repeating: 0, count: count)
        for hash in hashes {
            let bucket = Int(hash >> shift)
            placed[Int(next[bucket])] = hash
            next[bucket] += 1
        }
        for bucket in 0..<(1 << bits) {
            let first = Int(starts[bucket])
            let end = Int(starts[bucket + 1])
            guard end - first > 1 else { continue }
            if end - first > 16 {
                // Only when most hashes share their top bits (no real document): sort the bucket.
                var slice = Array(placed[first..<end])
                slice.sort()
                for index in 1..<slice.count where slice[index] == slice[index - 1] { return true }
                continue
            }
            for left in first..<end {
                for right in (left + 1)..<end where placed[left] == placed[right] { return true }
            }
        }
        return false
    }

    /// Members whose values are epoch seconds or small integers: accepted as JSON numbers on read
    /// (some writers emit numbers, early MSAL for Python even fractions, which are truncated) and
    /// always written back as strings.
    private static let numericFields: Set<CacheKnownField> = [
        .cachedAt, .expiresOn, .extendedExpiresOn, .extExpiresOn, .refreshOn, .lastModificationTime, .familyID,
    ]

    /// One entry object, its members in order (duplicates kept: lookups take the last one).
    ///
    private mutating func readEntry(source: CacheSource) throws(JSONScanner.Failure) -> CacheEntry {
        var members: [CacheMember] = []
        members.reserveCapacity(12)
        if try scanner.enterContainer(depth: 3) {
            repeat {
                let name = try scanner.memberName()
                let first = scanner.current
                if first == UInt8(ascii: "\"") {
                    let value = try scanner.scanString()
                    guard output != nil else {
                        members.append(member(named: name, value: .slice(CacheSlice(value))))
                        continue
                    }
                    let length = value.end - value.start
                    // The member first: matching its name may look at the 24 bytes from the name's start.
                    members.append(member(named: name, value: .slice(CacheSlice(start: written, end: written + length, form: value.form))))
                    keep(value.start, length)
                    continue
                }
                let raw = try rawValue(depth: 3)
                var member = member(named: name, value: .raw(raw))
                if first == UInt8(ascii: "-") || JSONGrammar.isDigit(first), let known = member.known,
                    Self.numericFields.contains(known)
                {
                    member.value = Self.numericValue(raw)
                } else if first == UInt8(ascii: "["), member.known == .target,
                    let joined = Self.joinedScopes(raw, limits: scanner.limits)
                {
                    // Early MSAL for Python wrote the target as a list of scopes.
                    member.value = .string(joined)
                }
                members.append(member)
            } while try scanner.nextMember()
        }
        return CacheEntry(members: members, source: source)
    }

    // MARK: Names and keys

    /// The string `slice` denotes.
    private func string(_ slice: JSONScanner.StringToken) -> String {
        let raw = UnsafeBufferPointer(rebasing: scanner.bytes[slice.start..<slice.end])
        if slice.form == .escaped {
            return String(decoding: JSONStringDecoding.unescape(raw), as: UTF8.self)
        }
        return String(decoding: raw, as: UTF8.self)
    }

    /// An entry key with ASCII letters lower-cased, and whether it was already lower-case.
    private func lowercasedKey(_ slice: JSONScanner.StringToken) -> (String, Bool) {
        var utf8: [UInt8]
        if slice.form == .escaped {
            utf8 = JSONStringDecoding.unescape(UnsafeBufferPointer(rebasing: scanner.bytes[slice.start..<slice.end]))
        } else {
            let raw = UnsafeBufferPointer(rebasing: scanner.bytes[slice.start..<slice.end])
            guard CacheText.hasUppercase(raw) else {
                return (String(decoding: raw, as: UTF8.self), true)
            }
            utf8 = Array(raw)
        }
        var exact = true
        for index in utf8.indices where utf8[index] &- UInt8(ascii: "A") < 26 {
            utf8[index] |= 0x20
            exact = false
        }
        return (String(decoding: utf8, as: UTF8.self), exact)
    }

    /// A member: with the schema field its name is, if any (the name is then a shared literal), else decoded.
    @inline(__always)
    private func member(named slice: JSONScanner.StringToken, value: CacheMember.Value) -> CacheMember {
        // Safe: 24 bytes from the name's start are inside the buffer (checked first).
        if slice.form != .escaped, slice.start &+ 24 <= scanner.count,
            let known = CacheKnownField.match(
                length: slice.end - slice.start, at: UnsafeRawPointer(scanner.bytes.baseAddress! + slice.start))
        {
            return CacheMember(known: known, value: value)
        }
        if slice.form != .escaped {
            let raw = UnsafeBufferPointer(rebasing: scanner.bytes[slice.start..<slice.end])
            if let known = CacheKnownField(utf8: raw) { return CacheMember(known: known, value: value) }
            return CacheMember(name: String(decoding: raw, as: UTF8.self), value: value)
        }
        let decoded = JSONStringDecoding.unescape(UnsafeBufferPointer(rebasing: scanner.bytes[slice.start..<slice.end]))
        return CacheMember(name: String(decoding: decoded, as: UTF8.self), value: value)
    }

    // MARK: Values

    /// A number in a numeric field as the string to keep: an exact integer as it is, a fraction
    /// or exponent truncated to whole seconds, anything else (huge, non-finite) raw.
    private static func numericValue(_ raw: [UInt8]) -> CacheMember.Value {
        // A JSON number without fraction or exponent that fits in `Int64`.
        if let integer = raw.withUnsafeBufferPointer(CacheEntry.parseSeconds) {
            return .string(String(integer))
        }
        if let double = Double(String(decoding: raw, as: UTF8.self)), double.isFinite, abs(double) < 1e15 {
            return .string(String(Int64(double.rounded(.down))))  // MSAL for Python once wrote floats
        }
        return .raw(raw)
    }

    /// The scopes of a `target` written as an array, joined with spaces; `nil` unless every
    /// element is a string. `raw` is a validated JSON array.
    private static func joinedScopes(_ raw: [UInt8], limits: JSONLimits) -> String? {
        let relaxed = JSONLimits(maxBytes: raw.count, maxDepth: limits.maxDepth, maxValues: limits.maxValues, rejectDuplicateKeys: false)
        guard let array = try? JSONDocument(parsing: raw, limits: relaxed).root,
            array.elements.allSatisfy({ $0.kind == .string })
        else { return nil }
        return array.elements.compactMap(\.string).joined(separator: " ")
    }
}
