import Foundation

/// The parts of the emulator's sign-in page a program needs: the form's action, its hidden
/// fields, and the usernames of its user buttons.
struct SignInForm: Sendable {
    var action: String
    var hiddenFields: [(String, String)]
    var users: [String]

    /// Reads the form with `id="signin"`; `nil` when the page has none.
    init?(html: String) {
        guard let formStart = html.range(of: "<form id=\"signin\""),
            let formEnd = html.range(of: "</form>", range: formStart.upperBound..<html.endIndex)
        else { return nil }
        let form = html[formStart.lowerBound..<formEnd.lowerBound]
        guard let openingEnd = form.firstIndex(of: ">"), let action = Self.attribute("action", in: form[..<openingEnd]) else { return nil }
        self.action = action
        var hidden: [(String, String)] = []
        var users: [String] = []
        for tag in Self.tags(in: form) {
            if tag.hasPrefix("<input"), Self.attribute("type", in: tag) == "hidden", let name = Self.attribute("name", in: tag) {
                hidden.append((name, Self.attribute("value", in: tag) ?? ""))
            } else if tag.hasPrefix("<button"), Self.attribute("name", in: tag) == "emulator_user",
                let value = Self.attribute("value", in: tag)
            {
                users.append(value)
            }
        }
        self.hiddenFields = hidden
        self.users = users
    }

    /// Every `<…>` tag of `text`.
    private static func tags(in text: Substring) -> [Substring] {
        var tags: [Substring] = []
        var rest = text[...]
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            tags.append(rest[open...close])
            rest = rest[rest.index(after: close)...]
        }
        return tags
    }

    /// The unescaped value of `name="…"` in `tag`.
    private static func attribute(_ name: String, in tag: Substring) -> String? {
        guard let start = tag.range(of: " \(name)=\"") else { return nil }
        let valueStart = start.upperBound
        guard let end = tag[valueStart...].firstIndex(of: "\"") else { return nil }
        return unescape(tag[valueStart..<end])
    }

    private static func unescape(_ text: Substring) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
