/// Serializes ``JSON`` to UTF-8 bytes: compact (for signing) or indented (for people).
package struct JSONWriter {
    package enum Style: Sendable {
        case compact
        case indented
    }

    package static func write(_ value: JSON, style: Style = .compact) -> [UInt8] {
        var writer = JSONWriter(style: style)
        writer.write(value, depth: 0)
        return writer.output
    }

    package static func string(_ value: JSON, style: Style = .compact) -> String {
        String(decoding: write(value, style: style), as: UTF8.self)
    }

    private let style: Style
    private var output: [UInt8] = []

    private init(style: Style) {
        self.style = style
        output.reserveCapacity(256)
    }

    private mutating func newline(_ depth: Int) {
        guard style == .indented else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
    }

    private mutating func write(_ value: JSON, depth: Int) {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let text): output.append(contentsOf: text.utf8)
        case .string(let text): writeString(text)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                newline(depth + 1)
                write(element, depth: depth + 1)
            }
            if !elements.isEmpty { newline(depth) }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (offset, member) in members.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                newline(depth + 1)
                writeString(member.name)
                output.append(UInt8(ascii: ":"))
                if style == .indented { output.append(UInt8(ascii: " ")) }
                write(member.value, depth: depth + 1)
            }
            if !members.isEmpty { newline(depth) }
            output.append(UInt8(ascii: "}"))
        }
    }

    private mutating func writeString(_ text: String) {
        JSONStringEncoding.appendQuoted(text, to: &output)
    }
}
