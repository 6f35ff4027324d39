import MSALJSON

extension MSALFixtureJSON {
    /// The compact UTF-8 serialization: no whitespace, members in document order, numbers as
    /// written, strings escaping `"`, `\`, control characters and DEL (the package's one JSON string
    /// escape rule, `JSONStringEncoding`).
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        write(to: &out)
        return out
    }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .null:
            out.append(contentsOf: "null".utf8)
        case .bool(let value):
            out.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let text):
            out.append(contentsOf: text.utf8)
        case .string(let value):
            Self.writeString(value, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                element.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(member.name, to: &out)
                out.append(UInt8(ascii: ":"))
                member.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ string: String, to out: inout [UInt8]) {
        JSONStringEncoding.appendQuoted(string, to: &out)
    }
}
