import MSALJOSE
import MSALSupport

/// Reads a unified cache document in one pass straight into ``TokenCacheDocument`` entries.
///
/// It validates exactly what MSALJOSE's `JSONDocument` validates (RFC 8259 grammar, strict UTF-8,
/// escapes and surrogate pairs, nothing after the value, the caps of ``JSONLimits``) but builds no
/// intermediate tape: an entry's string members become ``CacheSlice``s of the document's bytes
/// (no `String` per member), member names the schema defines are shared constants, and long
/// strings (tokens) are scanned eight bytes at a time.
struct CacheDocumentReader {
    /// Why reading stopped.
    enum Failure: Error {
        /// Not JSON, or not the shape of a cache document.
        case invalid(String, offset: Int)
        /// Over one of the limits.
        case limit(String)
        /// A known section that is not an object.
        case section(String)
        /// The root is valid JSON but not an object.
        case notAnObject
    }

    /// The document's bytes. Every read below is at an offset checked against `count` first
    /// (multi-byte reads check `position + width <= count`), so no read leaves the buffer.
    private let bytes: UnsafeBufferPointer<UInt8>
    private let count: Int
    private let start: Int
    private let limits: JSONLimits
    private var position: Int
    /// Values (names included) seen so far, against `limits.maxValues`.
    private var values = 0
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
        self.bytes = bytes
        self.count = bytes.count
        self.start = start
        self.position = start
        self.limits = limits
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

    // MARK: Structure

    private mutating func readDocument(source: CacheSource, into document: inout TokenCacheDocument) throws(Failure) {
        skipWhitespace()
        if position + 2 < count, bytes[position] == 0xEF, bytes[position + 1] == 0xBB, bytes[position + 2] == 0xBF {
            throw fail("a byte-order mark is not allowed")
        }
        guard position < count else { throw fail("unexpected end of JSON") }
        guard bytes[position] == UInt8(ascii: "{") else {
            try skipValue(depth: 0)
            try expectEnd()
            throw .notAnObject
        }
        try enterContainer(depth: 1)
        try readMembers { (reader: inout CacheDocumentReader, name: CacheSlice) throws(Failure) in
            let sectionName = reader.string(name)
            guard let section = CacheSection(name: sectionName) else {
                let valueStart = reader.position
                try reader.skipValue(depth: 1)
                let raw = Array(reader.bytes[valueStart..<reader.position])
                document.unknownMembers.removeAll { $0.name == sectionName }
                document.unknownMembers.append(TokenCacheDocument.RawMember(name: sectionName, raw: raw))
                return
            }
            guard reader.bytes[reader.position] == UInt8(ascii: "{") else {
                throw .section(sectionName)
            }
            try reader.readSection(section, source: source, into: &document.sections[section.rawValue])
        }
        try expectEnd()
    }

    private mutating func expectEnd() throws(Failure) {
        skipWhitespace()
        guard position == count else { throw fail("unexpected bytes after the JSON value") }
    }

    /// One known section: its entries by lower-cased key. When a legacy mixed-case key and its
    /// lower-case form are both present, the lower-case entry wins; otherwise the last one does.
    private mutating func readSection(
        _ section: CacheSection, source: CacheSource, into entries: inout [String: CacheEntry]
    ) throws(Failure) {
        try enterContainer(depth: 2)
        var read: [(key: String, exact: Bool, entry: CacheEntry)] = []
        var allExact = true
        try readMembers { (reader: inout CacheDocumentReader, name: CacheSlice) throws(Failure) in
            let (key, exact) = reader.lowercasedKey(name)
            allExact = allExact && exact
            let entry: CacheEntry
            if reader.bytes[reader.position] == UInt8(ascii: "{") {
                entry = try reader.readEntry(source: source)
            } else {
                let valueStart = reader.position
                try reader.skipValue(depth: 2)
                entry = CacheEntry(opaque: Array(reader.bytes[valueStart..<reader.position]))
            }
            reader.indexing?.add(key: key, entry: entry, section: section)
            read.append((key, exact, entry))
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
        try enterContainer(depth: 3)
        var members: [CacheMember] = []
        members.reserveCapacity(12)
        try readMembers { (reader: inout CacheDocumentReader, nameSlice: CacheSlice) throws(Failure) in
            let first = reader.bytes[reader.position]
            if first == UInt8(ascii: "\"") {
                try reader.countValue()
                let slice = try reader.scanString()
                members.append(reader.member(named: nameSlice, value: .slice(slice)))
                return
            }
            let valueStart = reader.position
            try reader.skipValue(depth: 3)
            let raw = Array(reader.bytes[valueStart..<reader.position])
            var member = reader.member(named: nameSlice, value: .raw(raw))
            if first == UInt8(ascii: "-") || JSONGrammar.isDigit(first), let known = member.known,
                Self.numericFields.contains(known)
            {
                member.value = Self.numericValue(raw)
            } else if first == UInt8(ascii: "["), member.known == .target, let joined = Self.joinedScopes(raw, limits: reader.limits) {
                // Early MSAL for Python wrote the target as a list of scopes.
                member.value = .string(joined)
            }
            members.append(member)
        }
        return CacheEntry(members: members, source: source)
    }

    /// Reads the members of the object whose `{` is at `position` (already counted), calling
    /// `member` with each name once `position` is at the first byte of its value.
    @inline(__always)
    private mutating func readMembers(
        _ member: (inout CacheDocumentReader, CacheSlice) throws(Failure) -> Void
    ) throws(Failure) {
        position += 1
        skipWhitespace()
        if position < count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            guard position < count, bytes[position] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            try countValue()
            let name = try scanString()
            skipWhitespace()
            guard position < count, bytes[position] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            position += 1
            skipWhitespace()
            guard position < count else { throw fail("unexpected end of JSON") }
            try member(&self, name)
            skipWhitespace()
            guard position < count else { throw fail("unterminated object") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
            } else if bytes[position] == UInt8(ascii: "}") {
                position += 1
                return
            } else {
                throw fail("expected ',' or '}'")
            }
        }
    }

    /// Counts the container at `position` and checks its depth (the root container is depth 1).
    @inline(__always)
    private mutating func enterContainer(depth: Int) throws(Failure) {
        guard depth <= limits.maxDepth else { throw .limit("JSON nesting deeper than \(limits.maxDepth)") }
        try countValue()
    }

    @inline(__always)
    private mutating func countValue() throws(Failure) {
        values += 1
        guard values <= limits.maxValues else { throw .limit("JSON document has more than \(limits.maxValues) values") }
    }

    // MARK: Names and keys

    /// The string `slice` denotes.
    private func string(_ slice: CacheSlice) -> String {
        let raw = UnsafeBufferPointer(rebasing: bytes[slice.range])
        if slice.form == .escaped {
            return String(decoding: CacheSlice.unescape(ArraySlice(raw)), as: UTF8.self)
        }
        return String(decoding: raw, as: UTF8.self)
    }

    /// An entry key with ASCII letters lower-cased, and whether it was already lower-case.
    private func lowercasedKey(_ slice: CacheSlice) -> (String, Bool) {
        var utf8: [UInt8]
        if slice.form == .escaped {
            utf8 = CacheSlice.unescape(ArraySlice(UnsafeBufferPointer(rebasing: bytes[slice.range])))
        } else {
            let raw = UnsafeBufferPointer(rebasing: bytes[slice.range])
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
    private func member(named slice: CacheSlice, value: CacheMember.Value) -> CacheMember {
        // Safe: 24 bytes from the name's start are inside the buffer (checked first).
        if slice.form != .escaped, Int(slice.start) &+ 24 <= count,
            let known = CacheKnownField.match(
                length: Int(slice.end - slice.start), at: UnsafeRawPointer(bytes.baseAddress! + Int(slice.start)))
        {
            return CacheMember(known: known, value: value)
        }
        if slice.form != .escaped {
            let raw = UnsafeBufferPointer(rebasing: bytes[slice.range])
            if let known = CacheKnownField(utf8: raw) { return CacheMember(known: known, value: value) }
            return CacheMember(name: String(decoding: raw, as: UTF8.self), value: value)
        }
        let decoded = CacheSlice.unescape(ArraySlice(UnsafeBufferPointer(rebasing: bytes[slice.range])))
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

    /// Validates any value at `position`, which sits in a container of depth `depth`, and moves past it.
    private mutating func skipValue(depth: Int) throws(Failure) {
        guard position < count else { throw fail("unexpected end of JSON") }
        switch bytes[position] {
        case UInt8(ascii: "{"):
            try enterContainer(depth: depth + 1)
            try readMembers { (reader: inout CacheDocumentReader, _: CacheSlice) throws(Failure) in
                try reader.skipValue(depth: depth + 1)
            }
        case UInt8(ascii: "["):
            try enterContainer(depth: depth + 1)
            try skipArray(depth: depth + 1)
        case UInt8(ascii: "\""):
            try countValue()
            _ = try scanString()
        case UInt8(ascii: "t"):
            try skipLiteral("true")
        case UInt8(ascii: "f"):
            try skipLiteral("false")
        case UInt8(ascii: "n"):
            try skipLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try countValue()
            try skipNumber()
        default:
            throw fail("unexpected character")
        }
    }

    private mutating func skipArray(depth: Int) throws(Failure) {
        position += 1
        skipWhitespace()
        if position < count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            try skipValue(depth: depth)
            skipWhitespace()
            guard position < count else { throw fail("unterminated array") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
            } else if bytes[position] == UInt8(ascii: "]") {
                position += 1
                return
            } else {
                throw fail("expected ',' or ']'")
            }
        }
    }

    private mutating func skipLiteral(_ literal: StaticString) throws(Failure) {
        try countValue()
        let length = literal.utf8CodeUnitCount
        guard position + length <= count else { throw fail("unexpected end of JSON") }
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: length)
        for offset in 0..<length where bytes[position + offset] != expected[offset] {
            throw fail("invalid literal")
        }
        position += length
    }

    private mutating func skipNumber() throws(Failure) {
        switch JSONGrammar.numberEnd(in: bytes, at: position) {
        case .success(let number): position = number.end
        case .failure(let failure):
            position = failure.position
            throw fail(failure.violation.message)
        }
    }

    // MARK: Strings

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// A mask with the high bit set in every byte of `word` that a string scan must stop at: `"`,
    /// `\\`, a control character, DEL or a non-ASCII byte; zero when there is none.
    ///
    /// Each test works on the low seven bits of every byte, where adding at most 0x7F cannot carry
    /// into the next byte, so every byte is judged on its own (no false positives): `t + 0x01`
    /// reaches the high bit only for 0x7F, `t + 0x60` for 0x20 and above, `(t ^ c) + 0x7F` for
    /// anything but `c`.
    @inline(__always)
    private static func stopMask(_ word: UInt64) -> UInt64 {
        let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        let low7 = word & low
        let delete = low7 &+ ones
        let printable = low7 &+ 0x6060_6060_6060_6060
        let notQuote = (low7 ^ 0x2222_2222_2222_2222) &+ low
        let notBackslash = (low7 ^ 0x5C5C_5C5C_5C5C_5C5C) &+ low
        return (word | delete | ~(printable & notQuote & notBackslash)) & highBits
    }

    /// Validates the string whose opening quote is at `position` and moves past its closing quote.
    @inline(__always)
    private mutating func scanString() throws(Failure) -> CacheSlice {
        position += 1
        let stringStart = position
        var form = CacheSlice.Form.clean
        let quote = SIMD16<UInt8>(repeating: UInt8(ascii: "\""))
        let backslash = SIMD16<UInt8>(repeating: UInt8(ascii: "\\"))
        let space = SIMD16<UInt8>(repeating: 0x20)
        let outside = SIMD16<UInt8>(repeating: 0x5F)
        // Safe: `baseAddress` is non-nil because `position` < `count` (the opening quote was read).
        let base = bytes.baseAddress!
        // Names and short values end within sixteen bytes: look there eight at a time first
        // (`position + 16 <= count` bounds both loads).
        if position &+ 16 <= count {
            let first = Self.stopMask(UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)))
            if first != 0 {
                position += first.trailingZeroBitCount >> 3
            } else {
                let second = Self.stopMask(UInt64(littleEndian: UnsafeRawPointer(base + position + 8).loadUnaligned(as: UInt64.self)))
                position += second != 0 ? 8 + second.trailingZeroBitCount >> 3 : 16
            }
            if position < count, base[position] == UInt8(ascii: "\"") {
                let stringEnd = position
                position += 1
                return CacheSlice(start: stringStart, end: stringEnd, form: form)
            }
        }
        while true {
            // Thirty-two bytes at a time while they are all plain (the bulk of a token):
            // `position + 32 <= count` bounds both loads.
            while position &+ 32 <= count {
                let raw = UnsafeRawPointer(base + position)
                let low = raw.loadUnaligned(as: SIMD16<UInt8>.self)
                let high = raw.loadUnaligned(fromByteOffset: 16, as: SIMD16<UInt8>.self)
                // Everything outside 0x20...0x7E, shifted down by 0x20, lands at 0x5F or above.
                let stop =
                    (low .== quote) .| (low .== backslash) .| ((low &- space) .>= outside)
                    .| (high .== quote) .| (high .== backslash) .| ((high &- space) .>= outside)
                // `any(stop)` without the generic reduction: the mask's lanes are 0 or all ones.
                // Sound: a 16-lane byte mask is 16 bytes, and any 16 bytes are two valid UInt64s.
                let lanes = unsafeBitCast(stop, to: SIMD2<UInt64>.self)
                if lanes[0] | lanes[1] != 0 { break }
                position += 32
            }
            // Then eight at a time, to find the byte to stop at: `position + 8 <= count` bounds the load.
            while position &+ 8 <= count {
                let mask = Self.stopMask(UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)))
                if mask != 0 {
                    position += mask.trailingZeroBitCount >> 3
                    break
                }
                position += 8
            }
            guard position < count else { throw fail("unterminated string") }
            let byte = base[position]
            if byte == UInt8(ascii: "\"") {
                break
            } else if byte == UInt8(ascii: "\\") {
                form = .escaped
                try skipEscape()
            } else if byte < 0x20 {
                throw fail("control character in string")
            } else if byte < 0x7F {
                position += 1
            } else if byte == 0x7F {
                if form == .clean { form = .unescapedNeedsEncoding }
                position += 1
            } else {
                try skipUTF8Sequence()
            }
        }
        let stringEnd = position
        position += 1
        return CacheSlice(start: stringStart, end: stringEnd, form: form)
    }

    private mutating func skipEscape() throws(Failure) {
        switch JSONGrammar.escapeLength(in: bytes, at: position) {
        case .success(let length): position += length
        case .failure(let failure):
            position = failure.position
            throw fail(failure.violation.message)
        }
    }

    /// Validates one multi-byte UTF-8 sequence (``JSONGrammar/utf8SequenceLength(in:at:)``).
    private mutating func skipUTF8Sequence() throws(Failure) {
        switch JSONGrammar.utf8SequenceLength(in: bytes, at: position) {
        case .success(let length): position += length
        case .failure(let failure):
            position = failure.position
            throw fail(failure.violation.message)
        }
    }

    // MARK: Whitespace and errors

    @inline(__always)
    private mutating func skipWhitespace() {
        while position < count {
            switch bytes[position] {
            case 0x20:
                // Indentation comes in runs of spaces: count them eight at a time (`position + 8
                // <= count` bounds the load; `baseAddress` is non-nil since `count` > `position`).
                while position &+ 8 <= count {
                    let others = UnsafeRawPointer(bytes.baseAddress! + position).loadUnaligned(as: UInt64.self) ^ 0x2020_2020_2020_2020
                    if others != 0 {
                        position += UInt64(littleEndian: others).trailingZeroBitCount >> 3
                        break
                    }
                    position += 8
                }
                if position < count, bytes[position] == 0x20 { position += 1 }
            case 0x09, 0x0A, 0x0D:
                position += 1
            default:
                return
            }
        }
    }

    private func fail(_ message: String) -> Failure {
        .invalid(message, offset: position - start)
    }
}
