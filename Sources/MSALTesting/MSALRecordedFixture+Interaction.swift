import Foundation

extension MSALRecordedFixture {
    /// One recorded exchange: the request to expect and the response to answer it with.
    public struct Interaction: Sendable, Hashable {
        /// What a sent request must look like to be answered by this interaction.
        public var request: Request
        /// The answer.
        public var response: Response
        /// Whether the interaction answers any number of matching requests (`repeatable`, default `false`).
        public var repeatable: Bool

        /// Creates an interaction.
        public init(request: Request, response: Response, repeatable: Bool = false) {
            self.request = request
            self.response = response
            self.repeatable = repeatable
        }
    }

    /// The recorded request: the method and URL a sent request must have, and the headers and
    /// form parameters it must contain.
    public struct Request: Sendable, Hashable {
        /// The method (upper case, compared exactly).
        public var method: MSALHTTPRequest.Method
        /// The absolute URL. Scheme and host are compared without regard to case, the port with
        /// the scheme's default filled in, the path exactly, the query as decoded (name, value) pairs in any order.
        public var url: URL
        /// Headers the sent request must carry with exactly these values (names compared without regard to case).
        public var headers: MSALHTTPHeaders
        /// Form parameters the sent `application/x-www-form-urlencoded` body must contain with these
        /// values (other parameters may be present); `nil` when the fixture gives no `form`.
        public var form: [String: String]?

        /// Creates a recorded request.
        public init(method: MSALHTTPRequest.Method, url: URL, headers: MSALHTTPHeaders = [:], form: [String: String]? = nil) {
            self.method = method
            self.url = url
            self.headers = headers
            self.form = form
        }
    }

    /// The recorded response.
    public struct Response: Sendable, Hashable {
        /// The HTTP status.
        public var status: Int
        /// The header fields, in order.
        public var headers: MSALHTTPHeaders
        /// The body.
        public var body: Body

        /// Creates a recorded response.
        public init(status: Int, headers: MSALHTTPHeaders = [:], body: Body = .empty) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// The response to replay: ``headers`` plus `Content-Type: application/json; charset=utf-8`
        /// when the body is JSON and the fixture gives no `Content-Type`.
        public var httpResponse: MSALHTTPResponse {
            var headers = headers
            if case .json = body, !headers.contains("Content-Type") {
                headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
            }
            return MSALHTTPResponse(statusCode: status, headers: headers, body: body.bytes)
        }
    }

    /// A recorded response body.
    public enum Body: Sendable, Hashable {
        /// No body.
        case empty
        /// A JSON `body`, replayed in its compact serialization (members in document order).
        case json(MSALFixtureJSON)
        /// A `body_text`, replayed byte for byte as UTF-8.
        case text(String)

        /// The bytes to replay.
        public var bytes: [UInt8] {
            switch self {
            case .empty: []
            case .json(let value): value.serialized()
            case .text(let text): Array(text.utf8)
            }
        }
    }
}
