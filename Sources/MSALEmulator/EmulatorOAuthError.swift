import Foundation
import MSALJOSE
import MSALJSON

/// An error answer in the Microsoft identity platform's shape (RFC 6749 §5.2 plus `error_codes`,
/// `timestamp`, `trace_id`, `correlation_id`, and optionally `suberror` and `claims`).
struct EmulatorOAuthError: Error, Sendable {
    var status: Int
    var error: String
    /// The AADSTS number, also the start of the description.
    var code: Int
    var description: String
    var subError: String?
    var claims: String?
    var headers: [(name: String, value: String)] = []
    /// A body sent instead of the error's JSON (``MSALEmulator/Fault/Response/answer(status:body:)``).
    var rawBody: [UInt8]?

    init(status: Int = 400, _ error: String, _ code: Int, _ description: String, subError: String? = nil, claims: String? = nil) {
        self.status = status
        self.error = error
        self.code = code
        self.description = description
        self.subError = subError
        self.claims = claims
    }

    /// `AADSTS<code>: <description>` with the trace id, correlation id and time lines Entra appends.
    func fullDescription(traceID: String, correlationID: String, now: Date) -> String {
        "AADSTS\(code): \(description)\r\nTrace ID: \(traceID)\r\nCorrelation ID: \(correlationID)\r\nTimestamp: \(EmulatorText.timestamp(now))"
    }

    /// The JSON answer.
    func response(traceID: String, correlationID: String, now: Date) -> EmulatorHTTPResponse {
        if let rawBody {
            return EmulatorHTTPResponse(
                status: status, headers: [("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "no-store")],
                body: rawBody)
        }
        var members: [JSONMember] = [
            JSONMember(name: "error", value: .string(error)),
            JSONMember(
                name: "error_description", value: .string(fullDescription(traceID: traceID, correlationID: correlationID, now: now))),
            JSONMember(name: "error_codes", value: .array([.integer(code)])),
            JSONMember(name: "timestamp", value: .string(EmulatorText.timestamp(now))),
            JSONMember(name: "trace_id", value: .string(traceID)),
            JSONMember(name: "correlation_id", value: .string(correlationID)),
            JSONMember(name: "error_uri", value: .string("https://login.microsoftonline.com/error?code=\(code)")),
        ]
        if let subError { members.append(JSONMember(name: "suberror", value: .string(subError))) }
        if let claims { members.append(JSONMember(name: "claims", value: .string(claims))) }
        var response = EmulatorHTTPResponse.json(
            .object(members), status: status, headers: headers + [("x-ms-clitelem", "1,\(code),0,,")])
        response.oauthError = error
        return response
    }
}

extension EmulatorOAuthError {
    static func missing(_ parameter: String) -> EmulatorOAuthError {
        EmulatorOAuthError("invalid_request", 900144, "The request body must contain the following parameter: '\(parameter)'.")
    }

    static func duplicated(_ parameter: String) -> EmulatorOAuthError {
        EmulatorOAuthError(
            "invalid_request", 9000411,
            "The request is not properly formatted. The parameter '\(EmulatorText.sanitized(parameter, limit: 64))' is duplicated.")
    }

    static let malformed = EmulatorOAuthError(
        "invalid_request", 900144, "The request body is not a valid application/x-www-form-urlencoded form.")

    static func unknownClient(_ clientID: String) -> EmulatorOAuthError {
        EmulatorOAuthError(
            "unauthorized_client", 700016,
            "Application with identifier '\(EmulatorText.sanitized(clientID, limit: 128))' was not found in the directory of the emulator.")
    }

    static func unknownTenant(_ tenant: String) -> EmulatorOAuthError {
        EmulatorOAuthError(
            "invalid_tenant", 90002,
            "Tenant '\(EmulatorText.sanitized(tenant, limit: 128))' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud."
        )
    }

    static func invalidGrant(_ code: Int, _ description: String, subError: String? = nil) -> EmulatorOAuthError {
        EmulatorOAuthError("invalid_grant", code, description, subError: subError)
    }

    /// The answer for an injected fault (never ``MSALEmulator/Fault/Response/delay(seconds:)``; for a
    /// wire fault a placeholder the connection handler replaces).
    static func fault(_ response: MSALEmulator.Fault.Response, endpoint: MSALEmulator.Endpoint = .token) -> EmulatorOAuthError {
        switch response {
        case .dpopProofRefused(let fault):
            guard endpoint == .resource else { return EmulatorOAuthError("invalid_dpop_proof", 900144, fault.description) }
            var error = EmulatorOAuthError(status: 401, "invalid_dpop_proof", 900144, fault.description)
            error.headers.append(
                (
                    "WWW-Authenticate",
                    "DPoP algs=\"ES256 RS256 PS256\", error=\"invalid_dpop_proof\", error_description=\"\(fault.description)\""
                ))
            return error
        case .invalidGrant(let subError):
            return EmulatorOAuthError(
                "invalid_grant", 70000, "The provided grant is invalid or malformed (injected by the emulator).", subError: subError)
        case .interactionRequired(let claims, let subError):
            return EmulatorOAuthError(
                "interaction_required", 50079,
                "Due to a configuration change made by your administrator, you must sign in again (injected by the emulator).",
                subError: subError, claims: claims)
        case .oauthError(let status, let error, let code, let description, let subError, let claims):
            return EmulatorOAuthError(status: status, error, code, description, subError: subError, claims: claims)
        case .throttled(let retryAfter):
            var error = EmulatorOAuthError(status: 429, "temporarily_unavailable", 90010, "Too many requests (injected by the emulator).")
            if let retryAfter { error.headers.append(("Retry-After", String(max(0, retryAfter)))) }
            return error
        case .serverError(let status, let retryAfter):
            let clamped = (400...599).contains(status) ? status : 500
            var error = EmulatorOAuthError(
                status: clamped, clamped == 503 || clamped == 429 ? "temporarily_unavailable" : "server_error", 90033,
                "The service is temporarily unavailable (injected by the emulator).")
            if let retryAfter { error.headers.append(("Retry-After", String(max(0, retryAfter)))) }
            return error
        case .delay:
            return EmulatorOAuthError(status: 500, "server_error", 90033, "A delay fault has no answer of its own.")
        case .answer(let status, let body):
            var answer = EmulatorOAuthError(status: (100...599).contains(status) ? status : 500, "", 0, "")
            answer.rawBody = Array(body.utf8)
            return answer
        case .closeBeforeHeaders, .stallBeforeHeaders, .resetMidBody, .truncatedBody, .stallMidBody, .trickle, .oversizedBody:
            // Never sent: the connection handler plays the wire fault instead (EmulatorWireFault).
            return EmulatorOAuthError(status: 500, "server_error", 90033, "A wire fault is played on the connection.")
        }
    }
}
