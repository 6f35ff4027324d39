/// A JSON value read from a fixture.
///
/// Unlike `JSONSerialization`, it keeps what the fixture wrote: object members stay in
/// document order and numbers keep their literal spelling, so a replayed `body` has the
/// same bytes on every run and on every platform. Conformance runners read a scenario's
/// `conformance` section through it.
///
/// ```swift
/// let expect = fixture.conformance?["expect"]
/// let tenant = expect?["tenant"]?.stringValue
/// ```
public enum MSALFixtureJSON: Sendable, Hashable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as its literal text (`3599`, `-1.5e3`).
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([MSALFixtureJSON])
    /// An object, its members in document order (names are unique).
    case object([Member])

    /// One member of a JSON object.
    public struct Member: Sendable, Hashable {
        /// The member name.
        public var name: String
        /// The member value.
        public var value: MSALFixtureJSON

        /// Creates a member.
        public init(name: String, value: MSALFixtureJSON) {
            self.name = name
            self.value = value
        }
    }

    /// The value of the object member `name`; `nil` when this is not an object or has no such member.
    public subscript(name: String) -> MSALFixtureJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.name == name }?.value
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The Boolean, when this is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number as a `Double`, when this is a number.
    public var numberValue: Double? {
        if case .number(let text) = self { return Double(text) }
        return nil
    }

    /// The number as an `Int`, when this is a number written as an integer that fits.
    public var intValue: Int? {
        if case .number(let text) = self { return Int(text) }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [MSALFixtureJSON]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The members in document order, when this is an object.
    public var members: [Member]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The JSON type name (`object`, `array`, `string`, `number`, `boolean`, `null`), for messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The compact serialization as a string.
    public var description: String {
        String(decoding: serialized(), as: UTF8.self)
    }
}
