/// A read-only view of one value inside a ``JSONDocument``.
///
/// Accessors materialize only what they return; looking a member up compares
/// bytes in place.
package struct JSONValue: Sendable {
    package let document: JSONDocument
    package let index: Int

    @inline(__always)
    private var entry: JSONDocument.Entry { document.tape[index] }

    /// The value's kind.
    package var kind: JSONDocument.Kind { entry.kind }

    /// The raw bytes of the value as they appear in the document (for strings, between the quotes).
    package var rawBytes: ArraySlice<UInt8> {
        let entry = self.entry
        return document.bytes[Int(entry.start)..<Int(entry.end)]
    }

    /// The string value, or `nil` when this is not a string.
    package var string: String? {
        let entry = self.entry
        guard entry.kind == .string else { return nil }
        return document.bytes.withUnsafeBufferPointer { buffer in
            let raw = UnsafeBufferPointer(rebasing: buffer[Int(entry.start)..<Int(entry.end)])
            if entry.flag {
                return String(decoding: JSONStringDecoding.unescape(raw), as: UTF8.self)
            }
            return String(decoding: raw, as: UTF8.self)
        }
    }

    /// Whether this is a string whose UTF-8 is exactly `other`'s, compared without allocating when the string has no escapes.
    ///
    /// The comparison is byte-exact, not `String.==`, which treats canonically
    /// equivalent strings as equal ("K" and U+212A KELVIN SIGN, "é" and "e" + U+0301).
    package func isString(_ other: String) -> Bool {
        let entry = self.entry
        guard entry.kind == .string else { return false }
        if entry.flag {
            return document.bytes.withUnsafeBufferPointer { buffer in
                JSONStringDecoding.unescape(UnsafeBufferPointer(rebasing: buffer[Int(entry.start)..<Int(entry.end)])).elementsEqual(
                    other.utf8)
            }
        }
        var other = other
        return other.withUTF8 { utf8 in
            document.bytes.withUnsafeBufferPointer { buffer in
                let length = Int(entry.end - entry.start)
                guard length == utf8.count else { return false }
                return length == 0 || memcmp(buffer.baseAddress! + Int(entry.start), utf8.baseAddress!, length) == 0
            }
        }
    }

    /// The boolean value, or `nil` when this is not `true`/`false`.
    package var bool: Bool? {
        switch entry.kind {
        case .true: return true
        case .false: return false
        default: return nil
        }
    }

    /// Whether the value is `null`.
    package var isNull: Bool { entry.kind == .null }

    /// The number as an exact integer, or `nil` when it is not a number, has a
    /// fraction or exponent, or does not fit in `Int64`.
    package var int64: Int64? {
        let entry = self.entry
        guard entry.kind == .number, !entry.flag else { return nil }
        return document.bytes.withUnsafeBufferPointer { buffer in
            var index = Int(entry.start)
            let end = Int(entry.end)
            let negative = buffer[index] == UInt8(ascii: "-")
            if negative { index += 1 }
            guard end - index <= 19 else { return nil }
            var value: Int64 = 0
            while index < end {
                let (product, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = product.addingReportingOverflow(Int64(buffer[index] - UInt8(ascii: "0")))
                if overflow1 || overflow2 { return nil }
                value = sum
                index += 1
            }
            return negative ? -value : value
        }
    }

    /// The number as a `Double` (may be infinite for absurd exponents such as `1e400`), or `nil` when not a number.
    package var double: Double? {
        guard entry.kind == .number else { return nil }
        if let integer = int64 {
            return Double(integer)
        }
        return Double(String(decoding: rawBytes, as: UTF8.self))
    }

    /// Number of elements (array) or members (object); 0 otherwise.
    package var count: Int {
        Int(entry.count)
    }

    /// The elements of an array (empty for other kinds).
    package var elements: JSONElements {
        JSONElements(document: document, container: index, isObject: false)
    }

    /// The members of an object, as (name, value) pairs (empty for other kinds).
    package var members: JSONMembers {
        JSONMembers(document: document, container: index)
    }

    /// The value of the member named `name`, or `nil` when this is not an object or has no such member.
    ///
    /// Walks the tape with both buffers borrowed once, instead of building a
    /// `JSONValue` pair (two array retains and releases each) per member; a
    /// token's claims are looked up this way a dozen times per validation.
    /// Keys with escapes still go through ``isString(_:)``, as before.
    package subscript(name: String) -> JSONValue? {
        guard kind == .object else { return nil }
        let document = self.document
        let object = index
        let original = name
        var name = name
        let valueIndex: Int? = name.withUTF8 { wanted in
            document.tape.withUnsafeBufferPointer { tape in
                document.bytes.withUnsafeBufferPointer { bytes in
                    var cursor = object + 1
                    let end = Int(tape[object].next)
                    while cursor < end {
                        let key = tape[cursor]
                        if key.flag {
                            if JSONValue(document: document, index: cursor).isString(original) { return cursor + 1 }
                        } else if Int(key.end - key.start) == wanted.count,
                            wanted.isEmpty || memcmp(bytes.baseAddress! + Int(key.start), wanted.baseAddress!, wanted.count) == 0
                        {
                            return cursor + 1
                        }
                        cursor = Int(tape[cursor + 1].next)
                    }
                    return nil
                }
            }
        }
        return valueIndex.map { JSONValue(document: document, index: $0) }
    }
}

/// The elements of a JSON array.
package struct JSONElements: Sequence, Sendable {
    let document: JSONDocument
    let container: Int
    let isObject: Bool

    package func makeIterator() -> Iterator {
        let entry = document.tape[container]
        let isArray = entry.kind == .array
        return Iterator(document: document, cursor: container + 1, end: isArray ? Int(entry.next) : container + 1)
    }

    package struct Iterator: IteratorProtocol {
        let document: JSONDocument
        var cursor: Int
        let end: Int

        package mutating func next() -> JSONValue? {
            guard cursor < end else { return nil }
            let value = JSONValue(document: document, index: cursor)
            cursor = Int(document.tape[cursor].next)
            return value
        }
    }
}

/// The members of a JSON object.
package struct JSONMembers: Sequence, Sendable {
    let document: JSONDocument
    let container: Int

    package func makeIterator() -> Iterator {
        let entry = document.tape[container]
        let isObject = entry.kind == .object
        return Iterator(document: document, cursor: container + 1, end: isObject ? Int(entry.next) : container + 1)
    }

    package struct Iterator: IteratorProtocol {
        let document: JSONDocument
        var cursor: Int
        let end: Int

        package mutating func next() -> (key: JSONValue, value: JSONValue)? {
            guard cursor < end else { return nil }
            let key = JSONValue(document: document, index: cursor)
            let value = JSONValue(document: document, index: cursor + 1)
            cursor = Int(document.tape[cursor + 1].next)
            return (key, value)
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
