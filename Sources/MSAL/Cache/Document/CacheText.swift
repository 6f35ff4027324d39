/// Small text helpers for cache keys and lookups.
package enum CacheText {
    /// `text` with ASCII letters lower-cased; returns `text` itself (no copy) when it has none.
    ///
    /// Cache keys and identifiers are ASCII in practice; non-ASCII bytes are left alone so a key
    /// never changes length or meaning under a locale.
    @inline(__always)
    package static func lowercased(_ text: String) -> String {
        var text = text
        let hasUpper = text.withUTF8 { hasUppercase($0) }
        guard hasUpper else { return text }
        return String(decoding: text.utf8.map { $0 &- UInt8(ascii: "A") < 26 ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// The string whose UTF-8 is `utf8` with ASCII letters lower-cased (see ``lowercased(_:)``).
    @inline(__always)
    package static func lowercased(utf8: UnsafeBufferPointer<UInt8>) -> String {
        guard hasUppercase(utf8) else { return String(decoding: utf8, as: UTF8.self) }
        return String(decoding: utf8.map { $0 &- UInt8(ascii: "A") < 26 ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Whether `utf8` holds an ASCII capital letter; eight bytes at a time.
    ///
    /// Per byte, on its low seven bits (where adding at most 0x7F cannot carry into the next
    /// byte): `+ 0x3F` reaches the high bit from `A` (0x41) up, `+ 0x25` from `[` (0x5B) up; bytes
    /// with the high bit set (non-ASCII) never count.
    @inline(__always)
    package static func hasUppercase(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = utf8.count
        guard count > 0, let base = utf8.baseAddress else { return false }
        var index = 0
        // `index + 8 <= count` bounds each load.
        while index &+ 8 <= count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            let low7 = word & 0x7F7F_7F7F_7F7F_7F7F
            let atLeastA = low7 &+ 0x3F3F_3F3F_3F3F_3F3F
            let pastZ = low7 &+ 0x2525_2525_2525_2525
            if atLeastA & ~pastZ & ~word & 0x8080_8080_8080_8080 != 0 { return true }
            index += 8
        }
        while index < count {
            if base[index] &- UInt8(ascii: "A") < 26 { return true }
            index += 1
        }
        return false
    }

    /// Whether two byte strings are equal, compared eight bytes at a time.
    @inline(__always)
    package static func equal(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = lhs.count
        guard count == rhs.count else { return false }
        guard count > 0, let left = lhs.baseAddress, let right = rhs.baseAddress else { return true }
        var index = 0
        // `index + 8 <= count` bounds each load of both buffers (they have `count` bytes).
        while index &+ 8 <= count {
            if UnsafeRawPointer(left + index).loadUnaligned(as: UInt64.self)
                != UnsafeRawPointer(right + index).loadUnaligned(as: UInt64.self)
            {
                return false
            }
            index += 8
        }
        while index < count {
            if left[index] != right[index] { return false }
            index += 1
        }
        return true
    }

    /// The scopes of a space-separated `target`, split on any run of spaces.
    package static func scopes(_ target: String) -> [Substring] {
        target.split(separator: " ", omittingEmptySubsequences: true)
    }

    /// The scopes of a space-separated `target` as strings, split on its bytes (the generic `split`
    /// showed in every silent cache hit).
    package static func scopeStrings(_ target: String) -> [String] {
        var scopes: [String] = []
        let utf8 = target.utf8
        var start = utf8.startIndex
        var index = start
        while index != utf8.endIndex {
            if utf8[index] == UInt8(ascii: " ") {
                if start != index { scopes.append(String(target[start..<index])) }
                start = utf8.index(after: index)
            }
            utf8.formIndex(after: &index)
        }
        if start != index { scopes.append(String(target[start..<index])) }
        return scopes
    }

    /// The lower-cased scope set of a `target`, for case-insensitive subset checks.
    package static func scopeSet(_ target: String) -> Set<String> {
        Set(scopes(target).map { lowercased(String($0)) })
    }

    /// Whether `lhs` and `rhs` are equal when ASCII letters are compared without case (tenant ids,
    /// realms, environments). Unlike Foundation's `caseInsensitiveCompare`, no Unicode folding and no
    /// bridging: non-ASCII bytes must match exactly.
    package static func equalIgnoringASCIICase(_ lhs: String, _ rhs: String) -> Bool {
        var left = lhs
        var right = rhs
        return left.withUTF8 { left in right.withUTF8 { equalIgnoringASCIICase(left, $0) } }
    }

    /// The same comparison on UTF-8 bytes.
    package static func equalIgnoringASCIICase(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for index in lhs.indices {
            let a = lhs[index]
            let b = rhs[index]
            if a != b {
                let foldedA = a &- UInt8(ascii: "A") < 26 ? a | 0x20 : a
                let foldedB = b &- UInt8(ascii: "A") < 26 ? b | 0x20 : b
                guard foldedA == foldedB else { return false }
            }
        }
        return true
    }

    /// Whether `text` has the shape of a GUID (`8-4-4-4-12` hexadecimal digits), as tenant ids do.
    package static func isGUID(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { utf8 in
            guard utf8.count == 36 else { return false }
            for offset in 0..<36 {
                let byte = utf8[offset]
                if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                    guard byte == UInt8(ascii: "-") else { return false }
                } else {
                    let isHex = (byte &- UInt8(ascii: "0") < 10) || ((byte | 0x20) &- UInt8(ascii: "a") < 6)
                    guard isHex else { return false }
                }
            }
            return true
        }
    }
}

extension CacheText {
    /// `word` with its ASCII capital letters lower-cased, eight bytes at once (see
    /// ``CacheText/hasUppercase(_:)`` for the per-byte test; the high bit of each capital,
    /// shifted down two, is its 0x20).
    @inline(__always)
    package static func foldedWord(_ word: UInt64) -> UInt64 {
        let low7 = word & 0x7F7F_7F7F_7F7F_7F7F
        let atLeastA = low7 &+ 0x3F3F_3F3F_3F3F_3F3F
        let pastZ = low7 &+ 0x2525_2525_2525_2525
        return word | ((atLeastA & ~pastZ & ~word & 0x8080_8080_8080_8080) >> 2)
    }

    /// The seed of the cache's byte-hash tables: random, drawn once per process (a system call per
    /// table cost a one-account load a third of its time), so no document can be written to make
    /// their probes collide. Immutable once drawn.
    package static let hashSeed = UInt64.random(in: .min ... .max)

    /// A hash of `utf8` with ASCII letters lower-cased, sixteen bytes at a time in two independent
    /// lanes, from `seed`. Not Swift's `Hasher`, whose SipHash took most of the time of a probe with
    /// keys of 70–120 bytes; not for anything an attacker gains from colliding (tables that use it
    /// take a random seed and compare the keys themselves).
    package static func foldedHash(_ utf8: UnsafeBufferPointer<UInt8>, seed: UInt64) -> UInt64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        let count = utf8.count
        var left = seed ^ UInt64(count)
        var right = ~seed &* multiplier
        if count > 0, let base = utf8.baseAddress {
            var index = 0
            // `index + 16 <= count` bounds both loads.
            while index &+ 16 <= count {
                left = (left ^ foldedWord(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))) &* multiplier
                right = (right ^ foldedWord(UnsafeRawPointer(base + index + 8).loadUnaligned(as: UInt64.self))) &* multiplier
                left ^= left >> 32
                right ^= right >> 32
                index += 16
            }
            if index &+ 8 <= count {
                left = (left ^ foldedWord(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))) &* multiplier
                left ^= left >> 32
                index += 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while index < count {
                tail |= UInt64(base[index]) << shift
                shift += 8
                index += 1
            }
            right = (right ^ foldedWord(tail)) &* multiplier
        }
        var hash = left ^ (right >> 31 | right << 33)
        hash ^= hash >> 32
        hash &*= 0xBF58_476D_1CE4_E5B9
        hash ^= hash >> 29
        hash &*= 0x94D0_49BB_1331_11EB
        return hash ^ (hash >> 32)
    }
}
