import MSALSupport

/// A parsed JSON document: the original bytes plus a flat "tape" of value
/// entries that point into them.
///
/// Parsing validates the whole document (RFC 8259 grammar, strict UTF-8,
/// no trailing bytes, the caps of ``JSONLimits``) in one pass without creating
/// any `String`, dictionary or array per value; strings and numbers are
/// materialized only when a caller asks for them. This keeps decoding a JWT
/// header and claim set to a few hundred nanoseconds. Foundation's
/// `JSONSerialization`/`JSONDecoder` measured 3–10× slower on these inputs;
/// see `docs/performance.md`.
package struct JSONDocument: Sendable {
    /// The kinds of JSON value.
    package enum Kind: UInt8, Sendable {
        case object, array, string, number, `true`, `false`, null
    }

    package struct Entry: Sendable {
        /// Value kind.
        var kind: Kind
        /// For strings: contains a backslash escape. For numbers: has a fraction or exponent.
        var flag: Bool
        /// Offset of the first byte (for strings: after the opening quote).
        var start: Int32
        /// Offset after the last byte (for strings: of the closing quote).
        var end: Int32
        /// Tape index of the next sibling (the entry after this value and all of its descendants).
        var next: Int32
        /// For containers: the number of elements or members.
        var count: Int32
    }

    /// The document's bytes.
    package let bytes: [UInt8]
    /// The values in document order; entry 0 is the root.
    package let tape: [Entry]

    /// Parses `bytes` as one JSON value.
    ///
    /// - Throws: ``JSONError`` with ``JSONError/Code/invalidJSON``, ``JSONError/Code/duplicateMember``
    ///   or ``JSONError/Code/limitExceeded``.
    package init(parsing bytes: [UInt8], limits: JSONLimits) throws(JSONError) {
        guard bytes.count <= limits.maxBytes else {
            throw JSONError(.limitExceeded, "JSON document of \(bytes.count) bytes exceeds the \(limits.maxBytes)-byte limit")
        }
        guard bytes.count < Int(Int32.max) else {
            throw JSONError(.limitExceeded, "JSON document is too large")
        }
        self.bytes = bytes
        self.tape = try bytes.withUnsafeBufferPointer { (buffer) throws(JSONError) -> [Entry] in
            var builder = TapeBuilder(scanner: JSONScanner(bytes: buffer, limits: limits))
            do throws(JSONScanner.Failure) {
                try builder.scanner.beginDocument()
                try builder.value(depth: 0)
                try builder.scanner.endDocument()
            } catch {
                throw JSONError(error)
            }
            return builder.tape
        }
    }

    /// The root value.
    package var root: JSONValue {
        JSONValue(document: self, index: 0)
    }
}

/// Fills the tape from what the scanner reads: one entry per value, member names included.
private struct TapeBuilder {
    var scanner: JSONScanner
    var tape: [JSONDocument.Entry] = []

    init(scanner: JSONScanner) {
        self.scanner = scanner
        tape.reserveCapacity(min(64, scanner.count / 4 + 1))
    }

    mutating func append(_ kind: JSONDocument.Kind, flag: Bool, start: Int, end: Int) {
        let index = Int32(tape.count)
        tape.append(.init(kind: kind, flag: flag, start: Int32(start), end: Int32(end), next: index + 1, count: 0))
    }

    /// The value at the scanner's position (inside a container of depth `depth`).
    mutating func value(depth: Int) throws(JSONScanner.Failure) {
        let start = scanner.position
        switch scanner.current {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let isObject = scanner.current == UInt8(ascii: "{")
            let index = tape.count
            let hasContent = try scanner.enterContainer(depth: depth + 1)
            append(isObject ? .object : .array, flag: false, start: start, end: start)
            var count: Int32 = 0
            if hasContent {
                repeat {
                    if isObject {
                        string(try scanner.memberName())
                    } else {
                        try scanner.nextElementStart()
                    }
                    try value(depth: depth + 1)
                    count += 1
                } while try isObject ? scanner.nextMember() : scanner.nextElement()
            }
            tape[index].end = Int32(scanner.position)
            tape[index].next = Int32(tape.count)
            tape[index].count = count
            if isObject, count > 1, scanner.limits.rejectDuplicateKeys {
                try checkDuplicateKeys(objectIndex: index)
            }
        case UInt8(ascii: "\""):
            string(try scanner.scanString())
        case UInt8(ascii: "t"):
            try scanner.scanLiteral("true")
            append(.true, flag: false, start: start, end: scanner.position)
        case UInt8(ascii: "f"):
            try scanner.scanLiteral("false")
            append(.false, flag: false, start: start, end: scanner.position)
        case UInt8(ascii: "n"):
            try scanner.scanLiteral("null")
            append(.null, flag: false, start: start, end: scanner.position)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let isInteger = try scanner.scanNumber()
            append(.number, flag: !isInteger, start: start, end: scanner.position)
        default:
            throw scanner.fail("unexpected character")
        }
    }

    mutating func string(_ token: JSONScanner.StringToken) {
        append(.string, flag: token.form == .escaped, start: token.start, end: token.end)
    }

    /// Rejects an object that names a member twice: pairwise for small objects, hashed for large
    /// ones so the check stays linear.
    func checkDuplicateKeys(objectIndex: Int) throws(JSONScanner.Failure) {
        var keyIndices: [Int] = []
        keyIndices.reserveCapacity(Int(tape[objectIndex].count))
        var cursor = objectIndex + 1
        let end = Int(tape[objectIndex].next)
        while cursor < end {
            keyIndices.append(cursor)
            cursor = Int(tape[cursor + 1].next)
        }
        if keyIndices.count <= 16 {
            for i in 0..<keyIndices.count {
                for j in (i + 1)..<keyIndices.count where keysEqual(keyIndices[i], keyIndices[j]) {
                    throw duplicate(keyIndices[j])
                }
            }
            return
        }
        if keyIndices.count <= Self.fingerprintTableLimit, !keyIndices.contains(where: { tape[$0].flag }) {
            if let repeated = firstRepeatByFingerprint(keyIndices) { throw duplicate(repeated) }
            return
        }
        // Larger ones, or names with escapes: each name's hash, computed in place (no copy unless
        // the name has escapes), sorted, then only names of equal hash compared (a set of copied
        // names cost an allocation per name).
        var hashed = keyIndices.map { (hash: keyHash($0), index: $0) }
        hashed.sort { ($0.hash, $0.index) < ($1.hash, $1.index) }
        // The first member, in document order, that repeats an earlier one (as a single pass would find).
        var firstRepeat: Int?
        var group = 0
        while group < hashed.count {
            var next = group + 1
            while next < hashed.count, hashed[next].hash == hashed[group].hash { next += 1 }
            for later in (group + 1)..<next
            where (group..<later).contains(where: { keysEqual(hashed[$0].index, hashed[later].index) }) {
                firstRepeat = min(firstRepeat ?? hashed[later].index, hashed[later].index)
                break
            }
            group = next
        }
        if let firstRepeat { throw duplicate(firstRepeat) }
    }

    /// The most names ``firstRepeatByFingerprint(_:)`` takes (an access token's payload has 20 to 30).
    static let fingerprintTableLimit = 64

    /// The first name, in document order, that repeats an earlier one, among up to 64 names without
    /// escapes: each name goes, in order, into a table of 128 slots on the stack by its fingerprint
    /// (its length and first seven bytes, which is the whole name up to seven bytes); a name meets
    /// only names of the same fingerprint, compared in full when longer than seven bytes. No
    /// `Hasher` per name and no sort (which took 2.6 % of an access-token validation's profile).
    /// Names chosen to share a fingerprint make it compare each with the earlier ones, at most
    /// 2,016 comparisons for 64 names.
    func firstRepeatByFingerprint(_ keyIndices: [Int]) -> Int? {
        let base = scanner.bytes.baseAddress!
        return withUnsafeTemporaryAllocation(of: (fingerprint: UInt64, index: Int).self, capacity: 128) { slots in
            // Index -1 marks an empty slot.
            slots.initialize(repeating: (0, -1))
            defer { slots.deinitialize() }
            for keyIndex in keyIndices {
                let entry = tape[keyIndex]
                let start = Int(entry.start)
                let length = Int(entry.end - entry.start)
                // The length saturates at 255, so a fingerprint whose length is at most seven is
                // only ever shared by names of that very length (a 263-byte name must not pass for
                // a 7-byte one: 263 wraps to 7 in a byte).
                var fingerprint = UInt64(min(length, 255)) << 56
                for offset in 0..<min(length, 7) {
                    fingerprint |= UInt64(base[start + offset]) << (8 * offset)
                }
                var slot = Int(truncatingIfNeeded: (fingerprint &* 0x9E37_79B9_7F4A_7C15) >> 57)
                while slots[slot].index >= 0 {
                    if slots[slot].fingerprint == fingerprint, length <= 7 || keysEqual(slots[slot].index, keyIndex) {
                        return keyIndex
                    }
                    slot = (slot + 1) & 127
                }
                slots[slot] = (fingerprint, keyIndex)
            }
            return nil
        }
    }

    /// The hash of a member name's decoded bytes, so equal names hash equally, escaped or not.
    /// Swift's `Hasher`, seeded per process: names chosen to collide cannot be computed in advance
    /// to make the check quadratic.
    func keyHash(_ index: Int) -> Int {
        let entry = tape[index]
        var hasher = Hasher()
        if entry.flag {
            decodedKey(index).withUnsafeBytes { hasher.combine(bytes: $0) }
        } else {
            hasher.combine(
                bytes: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(scanner.bytes)[Int(entry.start)..<Int(entry.end)]))
        }
        return hasher.finalize()
    }

    func duplicate(_ keyIndex: Int) -> JSONScanner.Failure {
        let name = String(decoding: decodedKey(keyIndex).prefix(64), as: UTF8.self)
        return .duplicateMember("JSON object has the member \"\(name)\" more than once")
    }

    func keysEqual(_ a: Int, _ b: Int) -> Bool {
        let ea = tape[a]
        let eb = tape[b]
        if !ea.flag, !eb.flag {
            let length = Int(ea.end - ea.start)
            guard length == Int(eb.end - eb.start) else { return false }
            return memcmp(scanner.bytes.baseAddress! + Int(ea.start), scanner.bytes.baseAddress! + Int(eb.start), length) == 0
        }
        return decodedKey(a) == decodedKey(b)
    }

    func decodedKey(_ index: Int) -> [UInt8] {
        let buffer = scanner.bytes
        let entry = tape[index]
        let raw = UnsafeBufferPointer(rebasing: buffer[Int(entry.start)..<Int(entry.end)])
        return entry.flag ? JSONStringDecoding.unescape(raw) : Array(raw)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
