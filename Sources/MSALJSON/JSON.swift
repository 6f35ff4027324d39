/// A JSON value built in memory, for writing (signing claims, CLI output) and
/// for showing a parsed document. Object members keep their order.
package indirect enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number kept as its JSON text, so nothing is lost in a round trip.
    case number(String)
    case string(String)
    case array([JSON])
    case object([JSONMember])

    /// An integer number.
    package static func integer<I: BinaryInteger>(_ value: I) -> JSON {
        .number(String(value))
    }

    /// An object from name/value pairs, in order.
    package static func object(_ pairs: KeyValuePairs<String, JSON>) -> JSON {
        .object(pairs.map { JSONMember(name: $0.key, value: $0.value) })
    }

    /// The value of the first member named `name` when this is an object.
    package subscript(name: String) -> JSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.name == name }?.value
    }

    /// For an object: a copy with members replaced, appended when absent, or removed when the new value is `nil`.
    package func replacingMembers<Changes: Sequence>(_ changes: Changes) -> JSON where Changes.Element == (key: String, value: JSON?) {
        guard case .object(var members) = self else { return self }
        for (name, value) in changes {
            if let index = members.firstIndex(where: { $0.name == name }) {
                if let value { members[index].value = value } else { members.remove(at: index) }
            } else if let value {
                members.append(JSONMember(name: name, value: value))
            }
        }
        return .object(members)
    }

    /// Converts a parsed value into an in-memory one.
    package init(_ value: JSONValue) {
        switch value.kind {
        case .null: self = .null
        case .true: self = .bool(true)
        case .false: self = .bool(false)
        case .number: self = .number(String(decoding: value.rawBytes, as: UTF8.self))
        case .string: self = .string(value.string ?? "")
        case .array: self = .array(value.elements.map(JSON.init))
        case .object: self = .object(value.members.map { JSONMember(name: $0.key.string ?? "", value: JSON($0.value)) })
        }
    }
}

/// One member of a ``JSON`` object.
package struct JSONMember: Sendable, Equatable {
    package var name: String
    package var value: JSON

    package init(name: String, value: JSON) {
        self.name = name
        self.value = value
    }
}
