/// A refusal of a managed-identity endpoint, written in that endpoint's own error shape.
struct ManagedIdentityFailure: Error, Sendable {
    var status: Int
    /// The OAuth-style error code (`invalid_request`, …) of the IMDS and Arc shapes and of the request log.
    var error: String
    var message: String
    var headers: [(name: String, value: String)] = []

    init(status: Int = 400, _ error: String, _ message: String) {
        self.status = status
        self.error = error
        self.message = message
    }

    /// A 400 `invalid_request`.
    init(_ message: String) {
        self.init(status: 400, "invalid_request", message)
    }
}
