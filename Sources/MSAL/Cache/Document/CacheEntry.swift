/// The value of one member of a cache entry.
package enum CacheFieldValue: Sendable, Equatable {
    /// A string (every field the unified schema defines is a string).
    case string(String)
    /// Any other JSON value, kept as its original bytes: an unknown field's object or array,
    /// a `null`, a number that is not an exact integer.
    case raw([UInt8])
}

/// One member of a cache entry, in document order.
package struct CacheField: Sendable, Equatable {
    /// The member name.
    package var name: String
    /// The member value.
    package var value: CacheFieldValue

    package init(name: String, value: CacheFieldValue) {
        self.name = name
        self.value = value
    }
}

/// One entry of a unified-cache section (an access token, an account, …) with every member it
/// was read with, known or not, so a read-modify-write keeps what newer writers added.
///
/// String members read from a document are kept as slices of it (``source``) and become `String`s
/// only when asked for. An entry that is not a JSON object at all is kept as ``opaque`` bytes and
/// never used.
package struct CacheEntry: Sendable, Equatable {
    /// The members in order.
    package var members: [CacheMember]
    /// The document the slices among ``members`` point into.
    package var source: CacheSource?
    /// The original bytes of an entry that is not a JSON object.
    package var opaque: [UInt8]?

    package init(fields: [CacheField] = [], opaque: [UInt8]? = nil) {
        self.members = fields.map { CacheMember(field: $0) }
        self.opaque = opaque
    }

    package init(members: [CacheMember], source: CacheSource?) {
        self.members = members
        self.source = source
    }

    /// Creates an entry from string members, in order; `nil` values are left out.
    package init(_ pairs: KeyValuePairs<String, String?>) {
        self.members = pairs.compactMap { pair in pair.value.map { CacheMember(name: pair.key, value: .string($0)) } }
    }

    /// The members in order, with their values materialized.
    package var fields: [CacheField] {
        get { members.map { CacheField(name: $0.name, value: value(of: $0)) } }
        set { members = newValue.map { CacheMember(field: $0) } }
    }

    /// The value of `member` (a member of this entry) as a ``CacheFieldValue``.
    package func value(of member: CacheMember) -> CacheFieldValue {
        switch member.value {
        case .string(let text): .string(text)
        case .raw(let raw): .raw(raw)
        case .slice(let slice): .string(slice.string(in: source!))
        }
    }

    /// Entries are equal when their members (names and values, in order) and opaque bytes are.
    package static func == (lhs: CacheEntry, rhs: CacheEntry) -> Bool {
        lhs.opaque == rhs.opaque && lhs.fields == rhs.fields
    }

    /// The position of the last member named `name` (a duplicate member in a document read as is:
    /// the last one wins, as JSON readers do).
    @inline(__always)
    package func lastIndex(of name: String) -> Int? {
        // A member with a schema name always carries it: compare one byte instead of the name.
        if let field = CacheKnownField(name: name) { return lastIndex(of: field) }
        return members.lastIndex { $0.name == name }
    }

    /// The position of the last member that is schema field `field`.
    @inline(__always)
    package func lastIndex(of field: CacheKnownField) -> Int? {
        var index = members.count - 1
        while index >= 0 {
            if members[index].known == field { return index }
            index -= 1
        }
        return nil
    }

    /// The string value of schema field `field`; `nil` when absent, `null` or not a string.
    package subscript(field: CacheKnownField) -> String? {
        guard let index = lastIndex(of: field) else { return nil }
        return string(at: index)
    }

    @inline(__always)
    private func string(at index: Int) -> String? {
        if let slice = members[index].slice { return slice.string(in: source!) }
        switch members[index].value {
        case .string(let value): return value
        case .slice(let slice): return slice.string(in: source!)
        case .raw: return nil
        }
    }

    /// The string value of member `name`; `nil` when absent, `null` or not a string.
    ///
    /// Setting `nil` removes the member; setting a string replaces the member in place or appends it.
    package subscript(name: String) -> String? {
        get {
            guard let index = lastIndex(of: name) else { return nil }
            return string(at: index)
        }
        set {
            guard let first = members.firstIndex(where: { $0.name == name }) else {
                if let newValue { members.append(CacheMember(name: name, value: .string(newValue))) }
                return
            }
            members[(first + 1)...].removeAll { $0.name == name }
            if let newValue {
                members[first].value = .string(newValue)
            } else {
                members.remove(at: first)
            }
        }
    }

    /// The string value of schema field `field`, as `candidate` itself when it has the same UTF-8
    /// (no new string for a value the caller already holds); `nil` when absent or not a string.
    package func string(_ field: CacheKnownField, reusing candidate: String) -> String? {
        guard let index = lastIndex(of: field) else { return nil }
        var candidate = candidate
        if let slice = members[index].slice, slice.form != .escaped {
            let same = source!.withBytes { bytes in
                candidate.withUTF8 { CacheText.equal(UnsafeBufferPointer(rebasing: bytes[slice.range]), $0) }
            }
            return same ? candidate : slice.string(in: source!)
        }
        let same = withUTF8(of: members[index]) { value in candidate.withUTF8 { CacheText.equal(value, $0) } }
        guard let same else { return nil }
        return same ? candidate : string(at: index)
    }

    /// Whether schema field `field` is a string.
    package func hasString(_ field: CacheKnownField) -> Bool {
        guard let index = lastIndex(of: field) else { return false }
        if case .raw = members[index].value { return false }
        return true
    }

    /// The value of schema field `field` as a `String` of its own, which does not keep the document's
    /// bytes alive (what public models such as ``MSALTenantProfile`` hold); `nil` when absent or not a
    /// string.
    package func ownedString(_ field: CacheKnownField) -> String? { self[field] }

    /// The value of string field `field` as a ``CacheLazyString`` (made into a `String` when first
    /// asked for); `nil` when absent or not a string.
    package func lazyString(_ field: CacheKnownField) -> CacheLazyString? {
        guard let index = lastIndex(of: field) else { return nil }
        switch members[index].value {
        case .slice(let slice): return CacheLazyString(source: source!, slice: slice)
        case .string(let value): return CacheLazyString(value)
        case .raw: return nil
        }
    }

    /// Calls `body` with the UTF-8 of string field `field`, without creating a `String` when the
    /// member is an unescaped slice of the document; `nil` when absent or not a string.
    @inline(__always)
    package func withUTF8<R>(_ field: CacheKnownField, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        guard let index = lastIndex(of: field) else { return nil }
        return try withUTF8(of: members[index], body)
    }

    /// Calls `body` with the UTF-8 of `member` (a member of this entry); `nil` when it is not a string.
    @inline(__always)
    package func withUTF8<R>(of member: CacheMember, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        switch member.value {
        case .string(var value):
            return try value.withUTF8(body)
        case .slice(let slice):
            if slice.form == .escaped {
                return try slice.utf8(in: source!).withUnsafeBufferPointer(body)
            }
            return try source!.withBytes { bytes in try body(UnsafeBufferPointer(rebasing: bytes[slice.range])) }
        case .raw:
            return nil
        }
    }

    /// Member `name` as whole seconds since 1970; `nil` when absent or not a decimal integer.
    package func seconds(_ name: String) -> Int64? {
        guard let text = self[name] else { return nil }
        return CacheEntry.parseSeconds(text)
    }

    /// Schema field `field` as whole seconds since 1970; `nil` when absent or not a decimal integer.
    package func seconds(_ field: CacheKnownField) -> Int64? {
        guard let index = lastIndex(of: field) else { return nil }
        switch members[index].value {
        case .slice(let slice) where slice.form != .escaped:
            return source!.withBytes { CacheEntry.parseSeconds(UnsafeBufferPointer(rebasing: $0[slice.range])) }
        case .raw:
            return nil
        default:
            return withUTF8(of: members[index]) { CacheEntry.parseSeconds($0) } ?? nil
        }
    }

    /// Parses decimal epoch seconds as written by the MSAL libraries (`"1700000000"`); a leading
    /// `-` is accepted (MSAL.NET writes `-62135596800` for "never"), anything else is not.
    package static func parseSeconds(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { parseSeconds($0) }
    }

    /// ``parseSeconds(_:)-swift.type.method`` on UTF-8.
    package static func parseSeconds(_ utf8: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        let count = utf8.count
        guard count > 0, count <= 20 else { return nil }
        let negative = utf8[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        guard index < count else { return nil }
        var value: Int64 = 0
        while index < count {
            let digit = utf8[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (product, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = product.addingReportingOverflow(Int64(digit))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
            index += 1
        }
        return negative ? -value : value
    }
}
