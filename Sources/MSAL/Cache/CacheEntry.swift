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
/// An entry that is not a JSON object at all is kept as ``opaque`` bytes and never used.
package struct CacheEntry: Sendable, Equatable {
    /// The members in order.
    package var fields: [CacheField]
    /// The original bytes of an entry that is not a JSON object.
    package var opaque: [UInt8]?

    package init(fields: [CacheField] = [], opaque: [UInt8]? = nil) {
        self.fields = fields
        self.opaque = opaque
    }

    /// Creates an entry from string members, in order; `nil` values are left out.
    package init(_ pairs: KeyValuePairs<String, String?>) {
        self.fields = pairs.compactMap { pair in pair.value.map { CacheField(name: pair.key, value: .string($0)) } }
        self.opaque = nil
    }

    /// The string value of member `name`; `nil` when absent, `null` or not a string.
    ///
    /// Setting `nil` removes the member; setting a string replaces the member in place or appends it.
    package subscript(name: String) -> String? {
        get {
            // The last member of that name wins (a duplicate member in a document read as is).
            for field in fields.reversed() where field.name == name {
                if case .string(let value) = field.value { return value }
                return nil
            }
            return nil
        }
        set {
            guard let first = fields.firstIndex(where: { $0.name == name }) else {
                if let newValue { fields.append(CacheField(name: name, value: .string(newValue))) }
                return
            }
            var index = fields.count - 1
            while index > first {
                if fields[index].name == name { fields.remove(at: index) }
                index -= 1
            }
            if let newValue {
                fields[first].value = .string(newValue)
            } else {
                fields.remove(at: first)
            }
        }
    }

    /// Member `name` as whole seconds since 1970; `nil` when absent or not a decimal integer.
    package func seconds(_ name: String) -> Int64? {
        guard let text = self[name] else { return nil }
        return CacheEntry.parseSeconds(text)
    }

    /// Parses decimal epoch seconds as written by the MSAL libraries (`"1700000000"`); a leading
    /// `-` is accepted (MSAL.NET writes `-62135596800` for "never"), anything else is not.
    package static func parseSeconds(_ text: String) -> Int64? {
        var utf8 = text.utf8[...]
        guard !utf8.isEmpty, utf8.count <= 20 else { return nil }
        var negative = false
        if utf8.first == UInt8(ascii: "-") {
            negative = true
            utf8 = utf8.dropFirst()
        }
        guard !utf8.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (product, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = product.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return negative ? -value : value
    }
}
