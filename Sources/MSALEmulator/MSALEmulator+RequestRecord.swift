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
    }
}
