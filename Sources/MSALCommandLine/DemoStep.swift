import MSALJSON

/// One step of `msal demo`: what it did (notes), what it verified (checks), structured details
/// for JSON output, and the failure when an outcome was not the expected one.
struct DemoStep: Sendable {
    /// 1-based position.
    let number: Int
    /// Machine name for JSON output, such as `sign_in`.
    let name: String
    /// What the step does, for people.
    let title: String
    /// What happened (`isCheck` false) and what was verified (`isCheck` true), in order.
    private(set) var lines: [(isCheck: Bool, text: String)] = []
    private(set) var details: [JSONMember] = []
    /// What went wrong; `nil` while (and once) the step went as expected.
    var failure: String?

    init(number: Int, name: String, title: String) {
        self.number = number
        self.name = name
        self.title = title
    }

    var passed: Bool { failure == nil }

    /// What happened, in order.
    var notes: [String] { lines.filter { !$0.isCheck }.map(\.text) }

    /// What was verified, in order.
    var checks: [String] { lines.filter(\.isCheck).map(\.text) }

    /// Records what happened.
    mutating func note(_ text: String) {
        lines.append((false, text))
    }

    /// Records a structured detail (JSON output only).
    mutating func detail(_ name: String, _ value: JSON) {
        details.removeAll { $0.name == name }
        details.append(JSONMember(name: name, value: value))
    }

    /// Records `verified` when `condition` holds; otherwise throws a ``DemoFailure`` saying `failure`.
    mutating func expect(_ condition: Bool, _ verified: @autoclosure () -> String, otherwise failure: @autoclosure () -> String) throws {
        guard condition else { throw DemoFailure(failure()) }
        lines.append((true, verified()))
    }

    /// The step as one JSON object.
    var json: JSON {
        .object([
            JSONMember(name: "step", value: .integer(number)),
            JSONMember(name: "name", value: .string(name)),
            JSONMember(name: "title", value: .string(title)),
            JSONMember(name: "passed", value: .bool(passed)),
            JSONMember(name: "notes", value: .array(notes.map(JSON.string))),
            JSONMember(name: "checks", value: .array(checks.map(JSON.string))),
            JSONMember(name: "details", value: .object(details)),
            JSONMember(name: "error", value: failure.map(JSON.string) ?? .null),
        ])
    }
}
