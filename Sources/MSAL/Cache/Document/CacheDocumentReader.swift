import MSALJSON
import MSALSupport

/// Reads a unified cache document in one pass straight into ``TokenCacheDocument`` entries: the
/// cache's schema mapping over the package's one JSON reader, ``JSONScanner``.
///
/// The scanner validates (RFC 8259 grammar, strict UTF-8, escapes and surrogate pairs, nothing after
/// the value, the caps of ``JSONLimits``) exactly as it does for `JSONDocument`; this reader builds
/// no intermediate tape: an entry's string members become ``CacheSlice``s of the document's bytes
/// (no `String` per member), and member names the schema defines are shared constants.
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
    /// The index being built along with the document, while each entry is still in the cache.
    private var indexing: Indexing?

    /// An index built entry by entry as they are read.
    struct Indexing {
        var index = TokenCacheIndex()
        let aliases: CacheEnvironmentAliases
        var memo = TokenCacheIndex.Memo()
        /// Sections where an entry read (and indexed) was then replaced or dropped (a duplicate
        /// key, a legacy spelling): indexed again from the final entries at the end.
        var stale: Set<CacheSection> = []

        init(aliases: CacheEnvironmentAliases) {
            self.aliases = aliases
        }

        mutating func add(key: String, entry: CacheEntry, section: CacheSection) {
            index.insert(key: key, entry: entry, section: section, aliases: aliases, memo: &memo)
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, start: Int, limits: JSONLimits) {
        scanner = JSONScanner(bytes: bytes, start: start, limits: limits)
    }

    /// Reads `source.bytes[start...]` into `document` (an empty document); with `aliases`, also
    /// returns the index of the entries read, built as they are read.
    static func read(
        _ source: CacheSource, from start: Int, limits: JSONLimits, into document: inout TokenCacheDocument,
        indexingWith aliases: CacheEnvironmentAliases? = nil
    ) throws(Failure) -> TokenCacheIndex? {
        // The buffer pointer lives only inside this closure; the reader never escapes it.
        let result: Result<TokenCacheIndex?, Failure> = source.bytes.withUnsafeBufferPointer { buffer in
            var reader = CacheDocumentReader(bytes: buffer, start: start, limits: limits)
            reader.indexing = aliases.map(Indexing.init)
            // About one account per 4 KB of document (6.4 KB in MSAL for Python's form): room for
            // them up front instead of growing (and rehashing) the table many times.
            reader.indexing?.index.accounts.reserveCapacity(min(buffer.count / 4096, 1 << 20))
            do throws(Failure) {
                try reader.readDocument(source: source, into: &document)
            } catch {
                return .failure(error)
            }
            guard var indexing = reader.indexing else { return .success(nil) }
            for section in CacheSection.allCases where indexing.stale.contains(section) {
                indexing.index.removeAll(section)
                for (key, entry) in document[section] {
                    indexing.add(key: key, entry: entry, section: section)
                }
            }
            return .success(indexing.index)
        }
        return try result.get()
    }

    /// Runs a step of the scanner, reporting its failure as this reader's.
    @inline(__always)
    private static func scan<T>(_ step: () throws(JSONScanner.Failure) -> T) throws(Failure) -> T {
        do throws(JSONScanner.Failure) {
            return try step()
        } catch {
            throw .json(error)
        }
    }

    // MARK: Structure

    private mutating func readDocument(source: CacheSource, into document: inout TokenCacheDocument) throws(Failure) {
        try Self.scan { () throws(JSONScanner.Failure) in try scanner.beginDocument() }
        guard scanner.current == UInt8(ascii: "{") else {
            try Self.scan { () throws(JSONScanner.Failure) in
                try scanner.skipValue(depth: 0)
                try scanner.endDocument()
            }
            throw .notAnObject
        }
        if try Self.scan({ () throws(JSONScanner.Failure) in try scanner.enterContainer(depth: 1) }) {
            repeat {
                let name = try Self.scan { () throws(JSONScanner.Failure) in try scanner.memberName() }
                let sectionName = string(name)
                if let section = CacheSection(name: sectionName) {
                    guard scanner.current == UInt8(ascii: "{") else { throw .section(sectionName) }
                    try readSection(section, source: source, into: &document.sections[section.rawValue])
                } else {
                    let raw = try rawValue(depth: 1)
                    document.unknownMembers.removeAll { $0.name == sectionName }
                    document.unknownMembers.append(TokenCacheDocument.RawMember(name: sectionName, raw: raw))
                }
            } while try Self.scan({ () throws(JSONScanner.Failure) in try scanner.nextMember() })
        }
        try Self.scan { () throws(JSONScanner.Failure) in try scanner.endDocument() }
    }

    /// Validates the value at the scanner's position (inside a container of depth `depth`) and
    /// returns its bytes.
    private mutating func rawValue(depth: Int) throws(Failure) -> [UInt8] {
        let valueStart = scanner.position
        try Self.scan { () throws(JSONScanner.Failure) in try scanner.skipValue(depth: depth) }
        return Array(scanner.bytes[valueStart..<scanner.position])
    }

    /// One known section: its entries by lower-cased key. When a legacy mixed-case key and its
    /// lower-case form are both present, the lower-case entry wins; otherwise the last one does.
    private mutating func readSection(
        _ section: CacheSection, source: CacheSource, into entries: inout [String: CacheEntry]
    ) throws(Failure) {
        var read: [(key: String, exact: Bool, entry: CacheEntry)] = []
        var allExact = true
        if try Self.scan({ () throws(JSONScanner.Failure) in try scanner.enterContainer(depth: 2) }) {
            repeat {
                let name = try Self.scan { () throws(JSONScanner.Failure) in try scanner.memberName() }
                let (key, exact) = lowercasedKey(name)
                allExact = allExact && exact
                let entry: CacheEntry
                if scanner.current == UInt8(ascii: "{") {
                    entry = try readEntry(source: source)
                } else {
                    entry = CacheEntry(opaque: try rawValue(depth: 2))
                }
                indexing?.add(key: key, entry: entry, section: section)
                read.append((key, exact, entry))
            } while try Self.scan({ () throws(JSONScanner.Failure) in try scanner.nextMember() })
        }
        entries.reserveCapacity(entries.count + read.count)
        var replaced = false
        if allExact {
            for item in read where entries.updateValue(item.entry, forKey: item.key) != nil {
                replaced = true
            }
        } else {
            replaced = true
            var exactKeys = Set<String>()
            for item in read {
                if !item.exact, exactKeys.contains(item.key) { continue }  // a legacy spelling never replaces the current one
                if item.exact { exactKeys.insert(item.key) }
                entries[item.key] = item.entry
            }
        }
        if replaced { indexing?.stale.insert(section) }
    }

    /// Members whose values are epoch seconds or small integers: accepted as JSON numbers on read
    /// (some writers emit numbers, early MSAL for Python even fractions, which are truncated) and
    /// always written back as strings.
    private static let numericFields: Set<CacheKnownField> = [
        .cachedAt, .expiresOn, .extendedExpiresOn, .extExpiresOn, .refreshOn, .lastModificationTime, .familyID,
    ]

    /// One entry object, its members in order (duplicates kept: lookups take the last one).
    private mutating func readEntry(source: CacheSource) throws(Failure) -> CacheEntry {
        var members: [CacheMember] = []
        members.reserveCapacity(12)
        if try Self.scan({ () throws(JSONScanner.Failure) in try scanner.enterContainer(depth: 3) }) {
            repeat {
                let name = try Self.scan { () throws(JSONScanner.Failure) in try scanner.memberName() }
                let first = scanner.current
                if first == UInt8(ascii: "\"") {
                    let value = try Self.scan { () throws(JSONScanner.Failure) in try scanner.scanString() }
                    members.append(member(named: name, value: .slice(CacheSlice(value))))
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
            } while try Self.scan({ () throws(JSONScanner.Failure) in try scanner.nextMember() })
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
        if let integer = exactInteger(raw) {
            return .string(String(integer))
        }
        if let double = Double(String(decoding: raw, as: UTF8.self)), double.isFinite, abs(double) < 1e15 {
            return .string(String(Int64(double.rounded(.down))))  // MSAL for Python once wrote floats
        }
        return .raw(raw)
    }

    /// A JSON number without fraction or exponent that fits in `Int64`.
    private static func exactInteger(_ raw: [UInt8]) -> Int64? {
        guard !raw.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }) else { return nil }
        var index = 0
        let negative = raw.first == UInt8(ascii: "-")
        if negative { index = 1 }
        guard raw.count - index <= 19 else { return nil }
        var value: Int64 = 0
        while index < raw.count {
            let (product, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = product.addingReportingOverflow(Int64(raw[index] - UInt8(ascii: "0")))
            if overflow1 || overflow2 { return nil }
            value = sum
            index += 1
        }
        return negative ? -value : value
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
