import MSALJSON

/// One HTTP response of the emulator.
struct EmulatorHTTPResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    /// Facts for the request log, not sent.
    var oauthError: String?
    /// An injected wire fault the connection plays instead of this answer.
    var wireFault: MSALEmulator.Fault.Response?

    init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [], oauthError: String? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.oauthError = oauthError
    }

    /// A JSON answer that is never cached.
    static func json(_ value: JSON, status: Int = 200, headers: [(name: String, value: String)] = []) -> EmulatorHTTPResponse {
        let caching: [(name: String, value: String)] =
            headers.contains { $0.name.lowercased() == "cache-control" }
            ? [] : [("Cache-Control", "no-store, no-cache"), ("Pragma", "no-cache")]
        return EmulatorHTTPResponse(
            status: status, headers: [("Content-Type", "application/json; charset=utf-8")] + caching + headers,
            body: JSONWriter.write(value))
    }

    /// An HTML page.
    static func html(_ page: String, status: Int = 200, headers: [(name: String, value: String)] = []) -> EmulatorHTTPResponse {
        EmulatorHTTPResponse(
            status: status,
            headers: [
                ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"),
                ("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY"),
            ] + headers,
            body: Array(page.utf8))
    }

    /// Plain text.
    static func text(_ text: String, status: Int, headers: [(name: String, value: String)] = []) -> EmulatorHTTPResponse {
        EmulatorHTTPResponse(
            status: status, headers: [("Content-Type", "text/plain; charset=utf-8")] + headers, body: Array((text + "\n").utf8))
    }

    /// A 302 to `location`.
    static func redirect(
        _ location: String, headers: [(name: String, value: String)] = [], oauthError: String? = nil
    ) -> EmulatorHTTPResponse {
        EmulatorHTTPResponse(
            status: 302, headers: [("Location", location), ("Cache-Control", "no-store"), ("Referrer-Policy", "no-referrer")] + headers,
            oauthError: oauthError)
    }
}
