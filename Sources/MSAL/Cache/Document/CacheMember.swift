/// One member of a cache entry as stored, in 24 bytes: a member of a schema field whose value is
/// a string read from a document (nearly all of them) holds only the field's tag and the place of
/// the value in the entry's ``CacheEntry/source``; another name or value lives in a small box.
package struct CacheMember: Sendable {
    package enum Value: Sendable {
        case string(String)
        case raw([UInt8])
        /// A string in the entry's ``CacheEntry/source``.
        case slice(CacheSlice)
    }

    /// What a member holds that does not fit inline: a name the schema does not define, a value
    /// that is not a slice of the document. Immutable, hence `Sendable`.
    private final class Box: Sendable {
        let name: String?
        let value: Value?

        init(name: String?, value: Value?) {
            self.name = name
            self.value = value
        }
    }

    /// The schema field the name is, if any.
    package let known: CacheKnownField?
    /// The slice's form when the value is a slice (`box` has no value).
    private var form: CacheSlice.Form
    private var start: Int32
    private var end: Int32
    private var box: Box?

    package init(name: String, value: Value) {
        let known = CacheKnownField(name: name)
        self.init(known: known, customName: known == nil ? name : nil, value: value)
    }

    /// A member of a field the schema defines (the name is `known`'s).
    package init(known: CacheKnownField, value: Value) {
        self.init(known: known, customName: nil, value: value)
    }

    private init(known: CacheKnownField?, customName: String?, value: Value) {
        self.known = known
        switch value {
        case .slice(let slice):
            form = slice.form
            start = slice.start
            end = slice.end
            box = customName.map { Box(name: $0, value: nil) }
        case .string, .raw:
            form = .escaped
            start = 0
            end = 0
            box = Box(name: customName, value: value)
        }
    }

    /// The member name.
    package var name: String {
        if let known { return known.name }
        return box?.name ?? ""
    }

    /// The member value.
    package var value: Value {
        get {
            if let value = box?.value { return value }
            return .slice(CacheSlice(start: start, end: end, form: form))
        }
        set {
            self = CacheMember(known: known, customName: known == nil ? name : nil, value: newValue)
        }
    }

    /// The value's slice, when it is one (without building a ``Value``).
    @inline(__always)
    package var slice: CacheSlice? {
        // A member of a schema field holding a slice has no box at all: nothing to retain.
        guard let box else { return CacheSlice(start: start, end: end, form: form) }
        if case .none = box.value { return CacheSlice(start: start, end: end, form: form) }
        return nil
    }
}

extension CacheMember {
    /// A member holding `field`'s value.
    package init(field: CacheField) {
        switch field.value {
        case .string(let text): self.init(name: field.name, value: .string(text))
        case .raw(let raw): self.init(name: field.name, value: .raw(raw))
        }
    }
}
