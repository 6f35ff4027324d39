/// HTTP header fields in the order they were added, looked up without regard to case.
public struct MSALHTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One header field.
    public struct Field: Sendable, Hashable {
        /// The field name as written.
        public var name: String
        /// The field value.
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields, in order.
    public private(set) var fields: [Field]

    /// Creates headers from fields.
    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    /// Creates headers from a dictionary literal.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The first value of the field `name`, compared case-insensitively.
    public subscript(name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    /// Every value of the field `name`.
    public func values(of name: String) -> [String] {
        fields.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    /// Appends a field, keeping any existing fields of that name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` with one field.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        fields.append(Field(name: name, value: value))
    }

    /// Removes every field named `name`.
    public mutating func remove(name: String) {
        fields.removeAll { Self.sameName($0.name, name) }
    }

    /// Whether a field named `name` is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { Self.sameName($0.name, name) }
    }

    /// The number of fields.
    public var count: Int { fields.count }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    /// The fields as a dictionary (last value wins), for `MSALFailure.httpHeaders`.
    public var dictionary: [String: String] {
        var result: [String: String] = [:]
        for field in fields { result[field.name] = field.value }
        return result
    }

    /// `name: value` lines.
    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    private static func sameName(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.lowercased() == b.lowercased()
    }
}
