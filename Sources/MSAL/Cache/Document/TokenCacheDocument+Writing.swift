import MSALJSON

#if canImport(Glibc)
import Glibc
#endif

extension TokenCacheDocument {
    /// Serializes the document: the five sections (always present, possibly empty) with keys sorted
    /// (by their UTF-8 bytes: alphabetical for the schema's lower-case ASCII keys), then the unknown
    /// top-level members as they were read. Every value is a string except the raw values of
    /// unknown fields. One entry per line, so the file diffs and greps well.
    ///
    /// A string member still a slice of the document it was read from is copied as it is when it
    /// needs no escaping (the common case: tokens are base64url), instead of being scanned again.
    /// Each entry
    /// is measured while its key is read for sorting; the output is then written into a buffer of
    /// exactly the measured size.
    package func serialized() -> [UInt8] {
        let order = CacheSection.allCases.map { Self.sortedIndices(sections[$0.rawValue].dictionary, section: $0) }
        var counter = CacheByteCounter()
        write(order: order, to: &counter)
        let size = counter.count
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, initializedCount in
            Self.adviseHugePages(buffer)
            // `buffer` has room for `size` bytes; the writer fills it from the start and checks
            // every write against that capacity, so exactly `writer.count` leading bytes are
            // initialized when it returns (and the same code measured `size` bytes above).
            var writer = CacheByteWriter(buffer: buffer)
            write(order: order, to: &writer)
            initializedCount = writer.count
        }
    }

    /// Asks for 2 MB pages under the whole 2 MB blocks of a large output buffer (32 MB or more:
    /// `malloc` maps such a block on its own, so the advice touches no other allocation), before
    /// anything is written: 64 MB written into 4 KB pages took 16,000 page faults, a fifth of
    /// serializing a 10,000-account document. Advice only: without transparent huge pages nothing
    /// changes.
    private static func adviseHugePages(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        let hugePage = 2 << 20
        guard buffer.count >= 32 << 20, let base = buffer.baseAddress else { return }
        let start = (Int(bitPattern: base) + hugePage - 1) / hugePage * hugePage
        let end = (Int(bitPattern: base) + buffer.count) / hugePage * hugePage
        guard end > start else { return }
        _ = madvise(UnsafeMutableRawPointer(bitPattern: start), end - start, MADV_HUGEPAGE)
    }

    /// An entry's place in a section, whether its key is written as it is (no byte to escape), and
    /// how many bytes its key and value take written (measured while the key is read for sorting,
    /// so the measuring pass does not visit the entries again).
    private struct Position {
        var index: [String: CacheEntry].Index
        var plainKey: Bool
        var size: Int
    }

    private func write<Sink: CacheByteSink>(order: [[Position]], to sink: inout Sink) {
        sink.append(UInt8(ascii: "{"))
        for section in CacheSection.allCases {
            if section.rawValue > 0 { sink.append(UInt8(ascii: ",")) }
            sink.append("\n  ")
            Self.appendQuoted(section.name, to: &sink)
            sink.append(": {")
            let entries = sections[section.rawValue].dictionary
            let indices = order[section.rawValue]
            for (offset, position) in indices.enumerated() {
                if offset > 0 { sink.append(UInt8(ascii: ",")) }
                sink.append("\n    ")
                if Sink.measuresOnly {
                    sink.skip(position.size)
                } else {
                    let (key, entry) = entries[position.index]
                    Self.appendMember(key: key, plainKey: position.plainKey, entry: entry, section: section, to: &sink)
                }
            }
            if !indices.isEmpty { sink.append("\n  ") }
            sink.append(UInt8(ascii: "}"))
        }
        for member in unknownMembers {
            sink.append(",\n  ")
            Self.appendQuoted(member.name, to: &sink)
            sink.append(": ")
            member.raw.withUnsafeBufferPointer { sink.append($0) }
        }
        sink.append("\n}\n")
    }

    /// One entry as a member of its section: the key, `: ` and the entry object.
    @inline(__always)
    private static func appendMember<Sink: CacheByteSink>(
        key: String, plainKey: Bool, entry: CacheEntry, section: CacheSection, to sink: inout Sink
    ) {
        if plainKey, section != .appMetadata {
            var key = key
            key.withUTF8 { utf8 in
                sink.append(UInt8(ascii: "\""))
                sink.append(utf8)
                sink.append(UInt8(ascii: "\""))
            }
        } else {
            appendQuoted(writtenKey(key, entry: entry, section: section), to: &sink)
        }
        sink.append(": ")
        append(entry, to: &sink)
    }

    /// The positions of `entries` in the order of their keys' UTF-8 bytes (compared by their
    /// first eight bytes, then in full on a tie), each with whether its key needs no escaping and
    /// its written size.
    private static func sortedIndices(_ entries: [String: CacheEntry], section: CacheSection) -> [Position] {
        var order: [(prefix: UInt64, position: Position)] = []
        order.reserveCapacity(entries.count)
        var index = entries.startIndex
        while index != entries.endIndex {
            let (key, entry) = entries[index]
            var utf8Key = key
            let (prefix, plain) = utf8Key.withUTF8 { (Self.prefix($0), !needsEscaping($0)) }
            var counter = CacheByteCounter()
            appendMember(key: key, plainKey: plain, entry: entry, section: section, to: &counter)
            order.append((prefix, Position(index: index, plainKey: plain, size: counter.count)))
            entries.formIndex(after: &index)
        }
        order.sort { lhs, rhs in
            lhs.prefix != rhs.prefix ? lhs.prefix < rhs.prefix : precedes(entries[lhs.position.index].key, entries[rhs.position.index].key)
        }
        return order.map(\.position)
    }

    /// Whether any byte of `utf8` must be escaped; sixteen bytes at a time.
    private static func needsEscaping(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = utf8.count
        guard count > 0, let base = utf8.baseAddress else { return false }
        let quote = SIMD16<UInt8>(repeating: UInt8(ascii: "\""))
        let backslash = SIMD16<UInt8>(repeating: UInt8(ascii: "\\"))
        let delete = SIMD16<UInt8>(repeating: 0x7F)
        let space = SIMD16<UInt8>(repeating: 0x20)
        var index = 0
        // `index + 16 <= count` bounds each load.
        while index &+ 16 <= count {
            let vector = UnsafeRawPointer(base + index).loadUnaligned(as: SIMD16<UInt8>.self)
            let found = (vector .== quote) .| (vector .== backslash) .| (vector .== delete) .| (vector .< space)
            // `any(found)` without the generic reduction: the mask's lanes are 0 or all ones.
            // Sound: a 16-lane byte mask is 16 bytes, and any 16 bytes are two valid UInt64s.
            let lanes = unsafeBitCast(found, to: SIMD2<UInt64>.self)
            if lanes[0] | lanes[1] != 0 { return true }
            index += 16
        }
        while index < count {
            if needsEscape(base[index]) { return true }
            index += 1
        }
        return false
    }

    /// The first eight bytes of `utf8`, big-endian, zero-padded: ordered as the bytes are.
    @inline(__always)
    private static func prefix(_ utf8: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<8 {
            value = value << 8 | (index < utf8.count ? UInt64(utf8[index]) : 0)
        }
        return value
    }

    /// Whether `lhs`'s UTF-8 bytes come before `rhs`'s.
    private static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                for index in 0..<min(left.count, right.count) where left[index] != right[index] {
                    return left[index] < right[index]
                }
                return left.count < right.count
            }
        }
    }

    /// AppMetadata keys are written `appmetadata-<environment>-<client_id>` with the client id as
    /// the entry has it; every other key lower-case.
    private static func writtenKey(_ key: String, entry: CacheEntry, section: CacheSection) -> String {
        guard section == .appMetadata, let environment = entry["environment"], let clientID = entry["client_id"],
            CacheKey.appMetadata(environment: environment, clientID: clientID).lowercased() == key
        else { return key }
        return CacheKey.appMetadata(environment: environment, clientID: clientID)
    }

    private static func append<Sink: CacheByteSink>(_ entry: CacheEntry, to sink: inout Sink) {
        if let opaque = entry.opaque {
            opaque.withUnsafeBufferPointer { sink.append($0) }
            return
        }
        sink.append(UInt8(ascii: "{"))
        if let source = entry.source {
            source.withBytes { document in
                for (offset, member) in entry.members.enumerated() {
                    appendMember(member, offset: offset, source: document, to: &sink)
                }
            }
        } else {
            for (offset, member) in entry.members.enumerated() {
                appendMember(member, offset: offset, source: nil, to: &sink)
            }
        }
        sink.append(UInt8(ascii: "}"))
    }

    @inline(__always)
    private static func appendMember<Sink: CacheByteSink>(
        _ member: CacheMember, offset: Int, source: UnsafeBufferPointer<UInt8>?, to sink: inout Sink
    ) {
        if offset > 0 { sink.append(", ") }
        if let known = member.known {
            sink.append(UInt8(ascii: "\""))
            sink.append(known.staticName)
            sink.append("\": ")
        } else {
            appendQuoted(member.name, to: &sink)
            sink.append(": ")
        }
        switch member.value {
        case .string(let text):
            appendQuoted(text, to: &sink)
        case .raw(let raw):
            raw.withUnsafeBufferPointer { sink.append($0) }
        case .slice(let slice):
            // A slice only exists in an entry that has a source.
            let raw = UnsafeBufferPointer(rebasing: source![slice.range])
            switch slice.form {
            case .clean:
                sink.append(UInt8(ascii: "\""))
                sink.append(raw)
                sink.append(UInt8(ascii: "\""))
            case .unescapedNeedsEncoding:
                appendQuoted(utf8: raw, to: &sink)
            case .escaped:
                JSONStringDecoding.unescape(raw).withUnsafeBufferPointer { appendQuoted(utf8: $0, to: &sink) }
            }
        }
    }

    /// Appends `text` as a JSON string literal.
    @inline(__always)
    private static func appendQuoted<Sink: CacheByteSink>(_ text: String, to sink: inout Sink) {
        var text = text
        text.withUTF8 { appendQuoted(utf8: $0, to: &sink) }
    }

    /// Appends `utf8` as a JSON string literal, escaped exactly as MSALJOSE's `JSONStringEncoding`
    /// escapes (`"` `\` and control characters, short forms where they exist, DEL too), looking
    /// for bytes to escape eight at a time.
    private static func appendQuoted<Sink: CacheByteSink>(utf8: UnsafeBufferPointer<UInt8>, to sink: inout Sink) {
        sink.append(UInt8(ascii: "\""))
        let count = utf8.count
        guard count > 0, let base = utf8.baseAddress else {
            sink.append(UInt8(ascii: "\""))
            return
        }
        var runStart = 0
        var index = 0
        while index < count {
            if index &+ 8 <= count {
                // Eight at a time while eight remain: `index + 8 <= count` bounds the load.
                let mask = escapeMask(UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)))
                if mask == 0 {
                    index += 8
                    continue
                }
                index += mask.trailingZeroBitCount >> 3
            } else if !needsEscape(base[index]) {
                index += 1
                continue
            }
            if runStart < index { sink.append(UnsafeBufferPointer(rebasing: utf8[runStart..<index])) }
            appendEscape(base[index], to: &sink)
            index += 1
            runStart = index
        }
        if runStart < count { sink.append(UnsafeBufferPointer(rebasing: utf8[runStart..<count])) }
        sink.append(UInt8(ascii: "\""))
    }

    @inline(__always)
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F
    }

    /// The high bit set in every byte of `word` that ``needsEscape(_:)``. Per byte, on the low
    /// seven bits, where adding at most 0x7F cannot carry into the next byte: `+ 0x01` reaches
    /// the high bit only for 0x7F, `+ 0x60` for 0x20 and above, `(t ^ c) + 0x7F` for anything but
    /// `c`; non-ASCII bytes are then left out.
    @inline(__always)
    private static func escapeMask(_ word: UInt64) -> UInt64 {
        let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        let low7 = word & low
        let delete = low7 &+ 0x0101_0101_0101_0101
        let printable = low7 &+ 0x6060_6060_6060_6060
        let notQuote = (low7 ^ 0x2222_2222_2222_2222) &+ low
        let notBackslash = (low7 ^ 0x5C5C_5C5C_5C5C_5C5C) &+ low
        return (delete | ~(printable & notQuote & notBackslash)) & ~word & 0x8080_8080_8080_8080
    }

    private static func appendEscape<Sink: CacheByteSink>(_ byte: UInt8, to sink: inout Sink) {
        JSONStringEncoding.escape(byte) { sink.append($0) }
    }
}

/// Where the document writer puts bytes: first a counter (to size the output), then the output.
protocol CacheByteSink {
    /// Whether the sink only counts bytes, so a part already measured can be skipped by its size.
    static var measuresOnly: Bool { get }
    mutating func append(_ byte: UInt8)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>)
    /// Counts `count` bytes measured before (a counting sink only).
    mutating func skip(_ count: Int)
}

extension CacheByteSink {
    @inline(__always)
    mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}

/// Counts what would be written.
struct CacheByteCounter: CacheByteSink {
    static var measuresOnly: Bool { true }
    private(set) var count = 0

    @inline(__always)
    mutating func skip(_ count: Int) {
        self.count += count
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        count += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        count += bytes.count
    }
}

/// Writes into a buffer of fixed capacity, front to back; a write past the end stops the process
/// instead of writing out of bounds.
struct CacheByteWriter: CacheByteSink {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    /// The bytes written so far, all at the start of `buffer`.
    private(set) var count = 0

    static var measuresOnly: Bool { false }

    init(buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    mutating func skip(_ count: Int) {
        preconditionFailure("a writer writes every byte")
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        precondition(count < buffer.count, "cache writer overflow")
        buffer[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        precondition(bytes.count <= buffer.count - count, "cache writer overflow")
        // In bounds by the check above; `source` is a different buffer (document or string bytes).
        (buffer.baseAddress! + count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }
}
