import Foundation
import Testing

@testable import MSAL

/// `MSALFailure(tokenEndpointResponse:grant:correlationID:)`: api.md's Errors section as a table, the
/// reference error bodies of MSAL for .NET, Node and Android (`Fixtures/Flows/errors/`), and bodies
/// that are not JSON at all.
@Suite("Token endpoint errors: mapping to MSALFailure")
struct TokenEndpointErrorTests {
    static let correlation = UUID(uuidString: "0f0e0d0c-0b0a-4909-8807-060504030201")!

    struct Row: Sendable, CustomTestStringConvertible {
        var error: String?
        var subError: String?
        var grant: TokenGrant
        var code: MSALError
        var internalCode: MSALInternalError?
        var testDescription: String { "\(error ?? "no error")/\(subError ?? "-") on \(grant)" }
    }

    /// What each OAuth error becomes, per grant.
    static let table: [Row] = {
        var rows: [Row] = []
        func all(_ error: String?, _ subError: String? = nil, _ code: MSALError, _ internalCode: MSALInternalError?) {
            for grant in [TokenGrant.authorizationCode, .refreshToken, .deviceCode] {
                rows.append(Row(error: error, subError: subError, grant: grant, code: code, internalCode: internalCode))
            }
        }
        func split(_ error: String, refresh: MSALError, other: MSALError, _ internalCode: MSALInternalError?) {
            rows.append(Row(error: error, grant: .refreshToken, code: refresh, internalCode: internalCode))
            rows.append(Row(error: error, grant: .authorizationCode, code: other, internalCode: internalCode))
            rows.append(Row(error: error, grant: .deviceCode, code: other, internalCode: internalCode))
        }
        all("invalid_grant", nil, .interactionRequired, .internalErrorInvalidGrant)
        all("invalid_grant", "bad_token", .interactionRequired, .internalErrorInvalidGrant)
        all("invalid_grant", "protection_policy_required", .serverProtectionPoliciesRequired, nil)
        all("unauthorized_client", "protection_policy_required", .serverProtectionPoliciesRequired, nil)
        all("interaction_required", nil, .interactionRequired, nil)
        all("login_required", nil, .interactionRequired, nil)
        all("consent_required", nil, .interactionRequired, nil)
        all("INTERACTION_REQUIRED", nil, .interactionRequired, nil)
        all("access_denied", nil, .userCanceled, .internalErrorAuthorizationFailed)
        all("authorization_declined", nil, .userCanceled, .internalErrorAuthorizationFailed)
        // MSAL for iOS: server_error is .internal with MSALError.serverError's value as the internal
        // code; temporarily_unavailable, an OAuth error it has no code for, a failed authorization.
        all("server_error", nil, .internal, .serverError)
        all("temporarily_unavailable", nil, .internal, .internalErrorAuthorizationFailed)
        all("invalid_client", nil, .internal, .internalErrorInvalidClient)
        all("invalid_scope", nil, .internal, .internalErrorInvalidScope)
        all("invalid_tenant", nil, .internal, .invalidTenant)
        all(nil, nil, .internal, .internalErrorUnhandledResponse)
        split("unauthorized_client", refresh: .interactionRequired, other: .internal, .internalErrorUnauthorizedClient)
        split("invalid_request", refresh: .interactionRequired, other: .internal, .internalErrorInvalidRequest)
        split("unsupported_grant_type", refresh: .interactionRequired, other: .internal, .internalErrorInvalidRequest)
        split("something_new", refresh: .interactionRequired, other: .internal, .internalErrorUnhandledResponse)
        return rows
    }()

    @Test("Mapping table", arguments: table)
    func row(_ row: Row) {
        var body = "{"
        if let error = row.error { body += #""error":"\#(error)","# }
        if let subError = row.subError { body += #""suberror":"\#(subError)","# }
        body += #""error_description":"AADSTS50000: test.","error_codes":[50000],"claims":"{\"access_token\":{}}"}"#
        let error = MSALFailure(tokenEndpointResponse: .json(400, body), grant: row.grant, correlationID: Self.correlation)
        #expect(error.code == row.code)
        #expect(error.internalCode == row.internalCode)
        #expect(error.oauthError == row.error)
        #expect(error.oauthSubError == row.subError)
        #expect(error.claims == #"{"access_token":{}}"#)
        #expect(error.stsErrorCodes == [50000])
        #expect(error.httpStatusCode == 400)
        #expect(error.correlationID == Self.correlation)
        #expect(error.message.contains("AADSTS50000"))
    }

    @Test("Bodies that are not an OAuth error: 400 without JSON, HTML, empty, truncated, a JSON array → internal/unhandledResponse")
    func notJSON() {
        for body in ["", "Bad Request", "<html><body><h1>400</h1></body></html>", #"{"error":"invalid_gr"#, #"["invalid_grant"]"#, "null"] {
            for grant in [TokenGrant.authorizationCode, .refreshToken, .deviceCode] {
                let error = MSALFailure(
                    tokenEndpointResponse: MSALHTTPResponse(statusCode: 400, text: body), grant: grant, correlationID: Self.correlation)
                #expect(error.code == .internal, "\(body)")
                #expect(error.internalCode == .internalErrorUnhandledResponse, "\(body)")
                #expect(error.oauthError == nil)
                #expect(error.httpStatusCode == 400)
                #expect(error.correlationID == Self.correlation)
                #expect(!error.message.isEmpty)
            }
        }
    }

    @Test("A byte-order mark before the JSON is skipped")
    func byteOrderMark() {
        let body: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(#"{"error":"invalid_grant","suberror":"bad_token"}"#.utf8)
        let error = MSALFailure(
            tokenEndpointResponse: MSALHTTPResponse(statusCode: 400, body: body), grant: .refreshToken, correlationID: Self.correlation)
        #expect(error.code == .interactionRequired)
        #expect(error.oauthSubError == "bad_token")
    }

    @Test("Control characters and huge descriptions are escaped and cut; the headers are kept")
    func sanitized() {
        let description = "line1\r\nline2\u{1B}[31m" + String(repeating: "x", count: 5000)
        let body =
            #"{"error":"invalid_grant","error_description":"\#(description.replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\u{1B}", with: "\\u001b"))"}"#
        let error = MSALFailure(
            tokenEndpointResponse: .json(400, body, headers: ["x-ms-request-id": "abc"]), grant: .refreshToken,
            correlationID: Self.correlation)
        #expect(!error.message.contains("\n"))
        #expect(!error.message.contains("\u{1B}"))
        #expect(error.message.count < 1000)
        #expect(error.httpHeaders?["x-ms-request-id"] == "abc")
    }

    struct ReferenceCase: Sendable, CustomTestStringConvertible {
        var file: String
        var code: MSALError
        var internalCode: MSALInternalError?
        var testDescription: String { file }
    }

    /// The reference error bodies, as a refresh answer.
    static let referenceCases: [ReferenceCase] = [
        ReferenceCase(
            file: "android_unauthorized_client_protection_policy_required.json", code: .serverProtectionPoliciesRequired, internalCode: nil),
        ReferenceCase(file: "dotnet_400_no_error_field.json", code: .internal, internalCode: .internalErrorUnhandledResponse),
        ReferenceCase(file: "dotnet_404_no_error_field.json", code: .internal, internalCode: .internalErrorUnhandledResponse),
        ReferenceCase(file: "dotnet_interaction_required_template.json", code: .interactionRequired, internalCode: nil),
        ReferenceCase(file: "dotnet_invalid_client_AADSTS7000218.json", code: .internal, internalCode: .internalErrorInvalidClient),
        ReferenceCase(file: "dotnet_invalid_grant.json", code: .interactionRequired, internalCode: .internalErrorInvalidGrant),
        ReferenceCase(
            file: "dotnet_invalid_grant_client_mismatch_foci.json", code: .interactionRequired, internalCode: .internalErrorInvalidGrant),
        ReferenceCase(file: "dotnet_invalid_grant_with_claims.json", code: .interactionRequired, internalCode: .internalErrorInvalidGrant),
        ReferenceCase(
            file: "dotnet_invalid_request_AADSTS90010.json", code: .interactionRequired, internalCode: .internalErrorInvalidRequest),
        ReferenceCase(file: "dotnet_invalid_tenant_AADSTS90002.json", code: .internal, internalCode: .invalidTenant),
        ReferenceCase(file: "msaljs_interaction_required_AADSTS50079_claims.json", code: .interactionRequired, internalCode: nil),
        ReferenceCase(file: "msaljs_invalid_grant_bad_token.json", code: .interactionRequired, internalCode: .internalErrorInvalidGrant),
    ]

    @Test("Reference error bodies on a refresh", arguments: referenceCases)
    func reference(_ reference: ReferenceCase) throws {
        let document = try #require(
            try JSONSerialization.jsonObject(with: FixtureLoader.data("Flows/errors/\(reference.file)")) as? [String: Any])
        let response = try #require(document["response"] as? [String: Any])
        let status = try #require(response["status"] as? Int)
        let body: [UInt8]
        if let text = response["body_text"] as? String {
            body = Array(text.utf8)
        } else {
            body = Array(try JSONSerialization.data(withJSONObject: try #require(response["body"])))
        }
        let json = (response["body"] as? [String: Any]) ?? [:]
        let error = MSALFailure(
            tokenEndpointResponse: MSALHTTPResponse(statusCode: status, body: body), grant: .refreshToken, correlationID: Self.correlation)
        #expect(error.code == reference.code)
        #expect(error.internalCode == reference.internalCode)
        #expect(error.oauthError == json["error"] as? String)
        #expect(error.oauthSubError == json["suberror"] as? String)
        #expect(error.claims == json["claims"] as? String)
        #expect(error.stsErrorCodes == json["error_codes"] as? [Int])
        #expect(error.httpStatusCode == status)
        // api.md: "Network failures and 5xx are not .interactionRequired" — and nothing here is a userCanceled.
        #expect(error.code != .userCanceled)
    }

    @Test(
        "Every invalid_grant sub-error of the MSAL.NET matrix: interactionRequired except protection_policy_required; claims and sub-error kept"
    )
    func subErrorMatrix() throws {
        let matrix = try #require(
            try JSONSerialization.jsonObject(with: FixtureLoader.data("Flows/errors/invalid_grant_suberror_matrix.json")) as? [String: Any])
        let template = try #require(matrix["body_template"] as? [String: Any])
        let cases = try #require(matrix["cases"] as? [[String: Any]])
        #expect(cases.count == 13)
        for item in cases {
            var body = template
            let subError = item["suberror"] as? String
            body["suberror"] = subError ?? ""
            let bytes = Array(try JSONSerialization.data(withJSONObject: body))
            let error = MSALFailure(
                tokenEndpointResponse: MSALHTTPResponse(statusCode: 400, body: bytes), grant: .refreshToken, correlationID: Self.correlation
            )
            let expected: MSALError =
                subError == "protection_policy_required" ? .serverProtectionPoliciesRequired : .interactionRequired
            #expect(error.code == expected, "\(subError ?? "null")")
            #expect(error.oauthSubError == (subError ?? ""))
            #expect(error.claims == "some_claims")
            #expect(error.stsErrorCodes == [90002])
            // MSAL.NET classifies client_mismatch as not UI-required; swift-msal follows api.md (a refresh
            // failure other than invalid_scope/invalid_client/protection policy is interactionRequired)
            // and keeps the refresh token for it (see the silent-foci-client-mismatch scenario).
            if item["expect_ui_required_exception"] as? Bool == true {
                #expect(error.code == .interactionRequired)
            }
        }
    }
}
