extension MSALEmulator {
    /// A failure the emulator answers with instead of doing its job, for tests and demos.
    ///
    /// A fault matches a request by endpoint and, when set, grant type, client id and user; the
    /// first matching fault answers (a ``Response/delay(seconds:)`` fault delays and lets the
    /// request go on). It applies ``times`` times, or to every match when that is `nil`.
    ///
    /// Wire faults (``Response/isWireFault``) break the answer itself — a closed or reset
    /// connection, a stall, a trickle, a truncated or oversized body — to test a client's transport.
    ///
    /// ```swift
    /// emulator.inject(.init(.invalidGrant(subError: "bad_token"), grantType: .refreshToken, times: 1))
    /// emulator.inject(.init(.throttled(retryAfter: 30), clientID: app.clientID))
    /// emulator.inject(.init(.resetMidBody, endpoint: .keys, times: 1))
    /// ```
    public struct Fault: Sendable {
        /// What the emulator answers.
        public enum Response: Sendable, Hashable {
            /// HTTP 400 `invalid_grant` (AADSTS70000) with an optional `suberror` such as
            /// `bad_token`, `token_expired`, `basic_action`, `client_mismatch` or `protection_policy_required`.
            case invalidGrant(subError: String? = nil)
            /// HTTP 400 `interaction_required` (AADSTS50079) with optional `claims` (a JSON claims
            /// challenge) and `suberror`.
            case interactionRequired(claims: String? = nil, subError: String? = nil)
            /// Any OAuth error in the AAD shape.
            case oauthError(
                status: Int = 400, error: String, errorCode: Int, description: String, subError: String? = nil, claims: String? = nil)
            /// HTTP 429 with `Retry-After: <seconds>` (omitted when `nil`) and a JSON error body.
            case throttled(retryAfter: Int? = nil)
            /// An error answer with `status` (default 500): any status from 400 to 599 — such as
            /// 404, 410, 429, 500 or 503 for the managed-identity endpoints —, other values become
            /// 500; with `Retry-After` when given. The error is `temporarily_unavailable` for 429
            /// and 503, else `server_error`.
            case serverError(status: Int = 500, retryAfter: Int? = nil)
            /// Waits `seconds` (real time), then handles the request normally.
            case delay(seconds: Double)
            /// Answers `status` with `body` as it is (`application/json`): an answer a client must
            /// refuse, such as a 200 whose `access_token` holds control characters.
            case answer(status: Int, body: String)
            /// Refuses the request's DPoP proof (RFC 9449) as if it had `fault`, whatever the proof:
            /// at the token endpoint HTTP 400 `invalid_dpop_proof`, at the resource HTTP 401 with
            /// `WWW-Authenticate: DPoP error="invalid_dpop_proof"`. How a client copes with a
            /// server that disagrees with its proofs (a skewed clock, a proxy that rewrites URLs).
            case dpopProofRefused(DPoPProofFault)

            // Wire faults: the answer breaks at the HTTP or TCP level instead of carrying an error.

            /// Closes the connection once the request is in, before sending a byte of the answer.
            case closeBeforeHeaders
            /// Never answers: the connection stays open and silent (the headers never come).
            case stallBeforeHeaders
            /// Sends a 200 head with a `Content-Length` of 4,096 and the first 64 bytes of the body,
            /// then resets the connection (TCP RST).
            case resetMidBody
            /// Sends a 200 head with a `Content-Length` of 4,096 and the first 64 bytes of the body,
            /// then closes the connection normally: the answer is shorter than it declared.
            case truncatedBody
            /// Sends a 200 head with a `Content-Length` of 4,096 and the first 64 bytes of the body,
            /// then nothing more, leaving the connection open.
            case stallMidBody
            /// Sends a 200 head with a `Content-Length` of 4,096, then the body one byte every
            /// `interval` seconds (at least 1 ms).
            case trickle(interval: Double)
            /// Sends a 200 answer whose body has `bytes` bytes (at most 64 MiB), declared in
            /// `Content-Length` when `declaresLength`, else sent chunked.
            case oversizedBody(bytes: Int, declaresLength: Bool)

            /// Whether the answer breaks at the HTTP or TCP level rather than carrying an error.
            public var isWireFault: Bool {
                switch self {
                case .closeBeforeHeaders, .stallBeforeHeaders, .resetMidBody, .truncatedBody, .stallMidBody, .trickle, .oversizedBody:
                    true
                case .invalidGrant, .interactionRequired, .oauthError, .throttled, .serverError, .delay, .answer, .dpopProofRefused:
                    false
                }
            }
        }

        /// What a ``Response/dpopProofRefused(_:)`` fault says is wrong with the proof.
        public enum DPoPProofFault: String, Sendable, Hashable, CaseIterable {
            /// `htu` is not the URI the request was sent to.
            case wrongTargetURI = "wrong_htu"
            /// The proof's `jti` was used before.
            case replayedProof = "replayed_jti"
            /// `iat` is too old (or too far ahead of the server's clock).
            case expiredProof = "expired_proof"

            /// The `error_description` the refusal carries.
            var description: String {
                switch self {
                case .wrongTargetURI: "The DPoP proof's htu is not this request's URI (injected by the emulator)."
                case .replayedProof: "The DPoP proof's jti was used before (injected by the emulator)."
                case .expiredProof: "The DPoP proof's iat is outside the accepted window (injected by the emulator)."
                }
            }
        }

        /// Identifies an injected fault, to remove it.
        public struct ID: Sendable, Hashable {
            let value: Int
        }

        /// The answer.
        public var response: Response
        /// The endpoint it applies to. Default ``Endpoint/token``.
        public var endpoint: Endpoint
        /// Only token requests of this grant type; `nil` for any (and for other endpoints).
        public var grantType: GrantType?
        /// Only requests of this client id; `nil` for any.
        public var clientID: String?
        /// Only requests for this user (by username, case-insensitive), where the emulator knows the
        /// user before answering: token requests (from the code, refresh token or device code) and
        /// the sign-in form's POST. `nil` for any.
        public var username: String?
        /// How many matching requests it answers; `nil` for all of them.
        public var times: Int?

        /// Creates a fault.
        public init(
            _ response: Response, endpoint: Endpoint = .token, grantType: GrantType? = nil, clientID: String? = nil,
            username: String? = nil, times: Int? = nil
        ) {
            self.response = response
            self.endpoint = endpoint
            self.grantType = grantType
            self.clientID = clientID
            self.username = username
            self.times = times.map { max(0, $0) }
        }
    }
}
