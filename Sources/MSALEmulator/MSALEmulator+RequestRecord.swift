import Foundation

extension MSALEmulator {
    /// One request the emulator answered, as kept in its request log.
    public struct RequestRecord: Sendable {
        /// The HTTP method, such as `GET`.
        public var method: String
        /// The request path without the query.
        public var path: String
        /// The endpoint the path names.
        public var endpoint: Endpoint
        /// The tenant segment of the path, as written (lower-cased); `nil` when the path has none.
        public var tenant: String?
        /// The grant type of a token request.
        public var grantType: GrantType?
        /// The `client_id` parameter, when the request carried one.
        public var clientID: String?
        /// The user the request was about, when the emulator knew it.
        public var username: String?
        /// The HTTP status answered (0 when an injected wire fault sent no status line).
        public var status: Int
        /// The OAuth `error` answered, if any (also for error redirects of the authorize endpoint).
        public var oauthError: String?
        /// Whether an injected fault answered (or delayed) the request.
        public var faulted: Bool
        /// The `client-request-id` header the request carried.
        public var correlationID: String?
        /// When the emulator received it, on the emulator's clock.
        public var date: Date
        /// A token request's form fields by name (the first value of each), with the values of
        /// credentials and grants (``redactedFields``) replaced by `<redacted>`: what tests compare
        /// between clients. Empty for other requests.
        public var form: [String: String] = [:]

        /// The fields whose values the log never keeps: secrets, assertions, codes and tokens.
        public static let redactedFields: Set<String> = [
            "client_secret", "client_assertion", "assertion", "code", "code_verifier", "refresh_token", "password", "device_code",
            "user_federated_identity_credential", "req_cnf",
        ]
    }
}
