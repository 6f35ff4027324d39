import Foundation

/// One complete HTTP request as the endpoints see it.
struct EmulatorHTTPRequest: Sendable {
    /// The method, upper case as sent (`GET`, `POST`).
    var method: String
    /// The request target's path (before `?`), not decoded.
    var path: String
    /// The request target's query (after `?`), `nil` when there is none.
    var rawQuery: String?
    /// Header names (lower-cased) and values, in order.
    var headers: [(name: String, value: String)]
    /// The body.
    var body: [UInt8]

    init(method: String, target: String, headers: [(name: String, value: String)], body: [UInt8]) {
        self.method = method
        if let question = target.firstIndex(of: "?") {
            self.path = String(target[..<question])
            self.rawQuery = String(target[target.index(after: question)...])
        } else {
            self.path = target
            self.rawQuery = nil
        }
        self.headers = headers.map { ($0.name.lowercased(), $0.value) }
        self.body = body
    }

    /// The first value of header `name` (case-insensitive).
    func header(_ name: String) -> String? {
        let folded = name.lowercased()
        return headers.first { $0.name == folded }?.value
    }

    /// The path's segments between slashes (empty ones dropped).
    var segments: [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }

    /// The query parameters; `nil` when the query is malformed.
    var query: EmulatorParameters? {
        guard let rawQuery else { return EmulatorParameters() }
        return EmulatorParameters(parsing: rawQuery.utf8)
    }

    /// Whether the body is declared `application/x-www-form-urlencoded`.
    var isForm: Bool {
        guard let type = header("content-type") else { return false }
        let media = type.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return media == "application/x-www-form-urlencoded"
    }

    /// The form body's parameters; `nil` when malformed.
    var form: EmulatorParameters? {
        EmulatorParameters(parsing: body)
    }

    /// The value of cookie `name`.
    func cookie(_ name: String) -> String? {
        for header in headers where header.name == "cookie" {
            for part in header.value.split(separator: ";") {
                let pair = part.trimmingCharacters(in: .whitespaces)
                if pair.hasPrefix(name + "=") { return String(pair.dropFirst(name.count + 1)) }
            }
        }
        return nil
    }

    /// The `client-request-id` header when it is fit to echo.
    var correlationID: String? {
        EmulatorText.correlationID(header("client-request-id"))
    }
}
