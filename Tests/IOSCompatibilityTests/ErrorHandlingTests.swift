import Foundation
import MSAL
import Testing

/// Error handling as MSAL for iOS apps write it: `NSError` in `MSALErrorDomain`,
/// `MSALError(rawValue:)`, a `switch` over MSAL's cases, and `userInfo` with MSAL's keys and value
/// types; and the code each server failure gets, as MSAL for iOS reports it.
@Suite("MSAL for iOS: errors as MSAL declares them")
struct ErrorHandlingTests {
    /// What an iOS app's error handler typically does with an MSAL error.
    enum AppReaction: Equatable {
        case signInInteractively
        case ignore
        case retryLater(String)
        case report(Int)
    }

    static func react(to error: Error) -> AppReaction {
        let nsError = error as NSError
        guard nsError.domain == MSALErrorDomain, let code = MSALError(rawValue: nsError.code) else { return .report(0) }
        switch code {
        case .interactionRequired, .serverInvalidRequestResetPasswordRequired:
            return .signInInteractively
        case .userCanceled:
            return .ignore
        case .serverDeclinedScopes, .serverProtectionPoliciesRequired, .workplaceJoinRequired, .insufficientDeviceStrength,
            .mdmEnrollmentCompletedNeedsRetry, .serverError:
            return .report(code.rawValue)
        case .internal:
            let internalCode = nsError.userInfo[MSALInternalErrorCodeKey] as? Int ?? 0
            if MSALInternalError(rawValue: internalCode) == .internalErrorUnhandledResponse,
                let status = nsError.userInfo[MSALHTTPResponseCodeKey] as? String
            {
                return .retryLater(status)
            }
            return .report(internalCode)
        @unknown default:
            return .report(nsError.code)
        }
    }

    @Test("MSALError is MSAL's enumeration: every case, raw values, init(rawValue:)")
    func enumeration() {
        let expected: [(MSALError, Int)] = [
            (.internal, -50000), (.workplaceJoinRequired, -50001), (.interactionRequired, -50002), (.serverDeclinedScopes, -50003),
            (.serverProtectionPoliciesRequired, -50004), (.userCanceled, -50005), (.serverError, -50006),
            (.insufficientDeviceStrength, -50007), (.mdmEnrollmentCompletedNeedsRetry, -50008),
            (.serverInvalidRequestResetPasswordRequired, -50142),
        ]
        for (code, raw) in expected {
            #expect(code.rawValue == raw)
            #expect(MSALError(rawValue: raw) == code)
        }
        #expect(MSALError.allCases.count == expected.count)
        #expect(MSALError(rawValue: -42000) == nil)
    }

    @Test("MSALInternalError has MSAL's case names as Swift imports them, with MSAL's raw values")
    func internalNames() {
        let expected: [(MSALInternalError, Int)] = [
            (.internalErrorInvalidParameter, -42000), (.internalErrorRedirectSchemeNotRegistered, -42001),
            (.internalErrorInvalidRequest, -42002), (.internalErrorInvalidClient, -42003), (.internalErrorInvalidGrant, -42004),
            (.internalErrorInvalidScope, -42005), (.internalErrorUnauthorizedClient, -42006),
            (.internalErrorUnhandledResponse, -42007), (.internalErrorUnexpected, -42008),
            (.internalErrorUnexpectedHttpResponse, -42009), (.internalErrorFailedAuthorityValidation, -42010),
            (.internalErrorInvalidRedirectURI, -42011), (.internalErrorMismatchedUser, -42101),
            (.internalErrorAmbiguousAccount, -42102), (.internalErrorAuthorizationFailed, -42104),
            (.internalErrorAccountRequired, -42106), (.internalErrorSessionCanceled, -42401),
            (.internalErrorInteractiveSessionAlreadyRunning, -42402), (.internalErrorNoViewController, -42403),
            (.internalErrorAttemptToOpenURLFromExtension, -42404), (.internalErrorUINotSupportedInExtension, -42405),
            (.internalErrorInvalidState, -42501), (.internalErrorInvalidResponse, -42600), (.internalErrorNonHttpsRedirect, -42602),
            (.internalErrorBrokerResponseNotReceived, -42700), (.internalErrorBrokerUnknown, -42711),
            (.internalBrokerNotAvailable, -42714), (.internalErrorJITLinkServerConfirmationError, -42715),
            (.errorJITComplianceCheckInvalidLinkPayload, -42722), (.errorJITRetryRequired, -42729),
            (.internalErrorJITLinkServerConfirmationTimeout, -42733), (.errorDeviceNotPSSORegistered, -42736),
            (.errorPSSOKeyIdMismatch, -42737), (.errorPSSOBiometricsNotEnrolled, -42744),
            (.internalErrorInvalidASWebAuthenticationURL, -42745),
        ]
        for (code, raw) in expected {
            #expect(code.rawValue == raw)
        }
        // swift-msal's own internal codes stay out of MSALError's range.
        for code in MSALInternalError.allCases where code != .serverError {
            #expect(MSALError(rawValue: code.rawValue) == nil, "\(code) (\(code.rawValue)) collides with an MSALError code")
        }
    }

    @Test("userInfo keys exist with MSAL's names")
    func keys() {
        let keys = [
            MSALOAuthErrorKey, MSALOAuthSubErrorKey, MSALOAuthSubErrorDescriptionKey, MSALErrorDescriptionKey, MSALSTSErrorCodesKey,
            MSALInternalErrorCodeKey, MSALHTTPHeadersKey, MSALCorrelationIDKey, MSALHTTPResponseCodeKey, MSALDeclinedScopesKey,
            MSALDisplayableUserIdKey, MSALGrantedScopesKey, MSALInvalidResultKey, MSALBrokerVersionKey, MSALHomeAccountIdKey,
            MSALThrottlingCacheHitKey,
        ]
        #expect(Set(keys).count == keys.count)
        #expect(MSALErrorDomain == "MSALErrorDomain")
    }

    /// A silent refresh against a token endpoint answering `status` with `body`: the error the app sees.
    static func refreshFailure(_ status: Int, _ body: String) async throws -> (NSError, StubPlatform) {
        let fixture = try CompatibilityFixture(accessTokenExpiresOn: Int(Date().timeIntervalSince1970) - 60) {
            StubPlatform.json(status, body)
        }
        let application = try fixture.application()
        let account = try application.account(forIdentifier: CompatibilityFixture.homeAccountID)
        do {
            let result = try await application.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
            Issue.record("the refresh succeeded: \(result.accessToken.prefix(4))")
            return (NSError(domain: "none", code: 0), fixture.transport)
        } catch {
            return (error as NSError, fixture.transport)
        }
    }

    @Test("server_error is .internal with MSALError.serverError's value as the internal code, as MSAL for iOS reports it")
    func serverError() async throws {
        let (error, _) = try await Self.refreshFailure(
            400, #"{"error":"server_error","error_description":"AADSTS90033: busy","error_codes":[90033],"correlation_id":"c"}"#)
        #expect(error.domain == MSALErrorDomain)
        #expect(error.code == MSALError.internal.rawValue)
        #expect(error.userInfo[MSALInternalErrorCodeKey] as? Int == MSALError.serverError.rawValue)
        #expect(error.userInfo[MSALOAuthErrorKey] as? String == "server_error")
        #expect(error.userInfo[MSALSTSErrorCodesKey] as? [Int] == [90033])
        #expect(error.userInfo[MSALHTTPResponseCodeKey] as? String == "400")
        #expect(Self.react(to: error) == .report(-50006))
    }

    @Test("temporarily_unavailable is .internal with internalErrorAuthorizationFailed, as MSAL for iOS reports it")
    func temporarilyUnavailable() async throws {
        let (error, _) = try await Self.refreshFailure(400, #"{"error":"temporarily_unavailable","error_description":"try later"}"#)
        #expect(error.code == MSALError.internal.rawValue)
        #expect(error.userInfo[MSALInternalErrorCodeKey] as? Int == MSALInternalError.internalErrorAuthorizationFailed.rawValue)
        #expect(error.userInfo[MSALOAuthErrorKey] as? String == "temporarily_unavailable")
    }

    @Test("A 5xx is .internal with internalErrorUnhandledResponse and the status as a String, after one retry")
    func serviceUnavailable() async throws {
        let (error, transport) = try await Self.refreshFailure(503, #"{"error":"server_error"}"#)
        #expect(error.code == MSALError.internal.rawValue)
        #expect(error.userInfo[MSALInternalErrorCodeKey] as? Int == MSALInternalError.internalErrorUnhandledResponse.rawValue)
        #expect(error.userInfo[MSALHTTPResponseCodeKey] as? String == "503")
        #expect(error.userInfo[MSALHTTPHeadersKey] as? [String: String] != nil)
        #expect(Self.react(to: error) == .retryLater("503"))
        #expect(transport.tokenRequests == 2)
    }

    @Test("invalid_grant on a silent refresh is .interactionRequired, with the OAuth fields and the account")
    func invalidGrant() async throws {
        let (error, _) = try await Self.refreshFailure(
            400, #"{"error":"invalid_grant","suberror":"bad_token","error_description":"AADSTS70008: expired","error_codes":[70008]}"#)
        #expect(error.code == MSALError.interactionRequired.rawValue)
        #expect(error.userInfo[MSALOAuthErrorKey] as? String == "invalid_grant")
        #expect(error.userInfo[MSALOAuthSubErrorKey] as? String == "bad_token")
        #expect(error.userInfo[MSALInternalErrorCodeKey] as? Int == MSALInternalError.internalErrorInvalidGrant.rawValue)
        #expect((error.userInfo[MSALCorrelationIDKey] as? String).flatMap(UUID.init(uuidString:)) != nil)
        #expect(Self.react(to: error) == .signInInteractively)
    }

    @Test("invalid_client is .internal with internalErrorInvalidClient")
    func invalidClient() async throws {
        let (error, _) = try await Self.refreshFailure(400, #"{"error":"invalid_client","error_description":"AADSTS7000218"}"#)
        #expect(error.code == MSALError.internal.rawValue)
        #expect(error.userInfo[MSALInternalErrorCodeKey] as? Int == MSALInternalError.internalErrorInvalidClient.rawValue)
    }

    @Test("access_denied is .userCanceled; protection_policy_required is .serverProtectionPoliciesRequired")
    func userActionCodes() async throws {
        let (denied, _) = try await Self.refreshFailure(400, #"{"error":"access_denied"}"#)
        #expect(denied.code == MSALError.userCanceled.rawValue)
        #expect(Self.react(to: denied) == .ignore)
        let (policy, _) = try await Self.refreshFailure(400, #"{"error":"unauthorized_client","suberror":"protection_policy_required"}"#)
        #expect(policy.code == MSALError.serverProtectionPoliciesRequired.rawValue)
    }

    @Test("A missing account: account(forIdentifier:) throws, non-optional, as MSAL for iOS's import")
    func missingAccount() throws {
        let fixture = try CompatibilityFixture(accessTokenExpiresOn: 0) { StubPlatform.json(500, "{}") }
        let application = try fixture.application()
        let found: MSALAccount = try application.account(forUsername: CompatibilityFixture.username)
        #expect(found.identifier == CompatibilityFixture.homeAccountID)
        do {
            _ = try application.account(forIdentifier: "someone.else")
            Issue.record("an unknown identifier returned an account")
        } catch {
            let nsError = error as NSError
            #expect(nsError.domain == MSALErrorDomain)
            #expect(nsError.userInfo[MSALInternalErrorCodeKey] as? Int == MSALInternalError.internalErrorAccountRequired.rawValue)
        }
    }
}
