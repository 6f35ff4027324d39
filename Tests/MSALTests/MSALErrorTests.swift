import Foundation
import MSALJOSE
import Testing

@testable import MSAL

@Suite("MSALFailure: codes, userInfo and NSError bridging")
struct MSALErrorTests {
    @Test("Codes keep MSAL for iOS raw values")
    func rawValues() {
        #expect(MSALError.internal.rawValue == -50000)
        #expect(MSALError.workplaceJoinRequired.rawValue == -50001)
        #expect(MSALError.interactionRequired.rawValue == -50002)
        #expect(MSALError.serverDeclinedScopes.rawValue == -50003)
        #expect(MSALError.serverProtectionPoliciesRequired.rawValue == -50004)
        #expect(MSALError.userCanceled.rawValue == -50005)
        #expect(MSALError.serverError.rawValue == -50006)
        #expect(MSALInternalError.internalErrorInvalidParameter.rawValue == -42000)
        #expect(MSALInternalError.internalErrorInvalidGrant.rawValue == -42004)
        #expect(MSALInternalError.internalErrorFailedAuthorityValidation.rawValue == -42010)
        #expect(MSALInternalError.internalErrorInvalidRedirectURI.rawValue == -42011)
        #expect(MSALInternalError.internalErrorAmbiguousAccount.rawValue == -42102)
        #expect(MSALInternalError.internalErrorInteractiveSessionAlreadyRunning.rawValue == -42402)
    }

    @Test("The NSError idiom of the MSAL tutorial works")
    func nsErrorIdiom() {
        var error = MSALFailure(
            .interactionRequired, internalCode: .internalErrorInvalidGrant, message: "refresh token expired",
            oauthError: "invalid_grant", oauthSubError: "bad_token",
            correlationID: UUID(uuidString: "6F0E2A4B-3C8E-4D2A-9E51-6E8F3C1D2B7A"))
        error.stsErrorCodes = [70008]
        error.httpStatusCode = 400
        let thrown: Error = error
        let nsError = thrown as NSError
        #expect(nsError.domain == MSALErrorDomain)
        #expect(nsError.code == MSALError.interactionRequired.rawValue)
        #expect(nsError.userInfo[MSALInternalErrorCodeKey] as? Int == -42004)
        #expect(nsError.userInfo[MSALOAuthErrorKey] as? String == "invalid_grant")
        #expect(nsError.userInfo[MSALOAuthSubErrorKey] as? String == "bad_token")
        #expect(nsError.userInfo[MSALSTSErrorCodesKey] as? [Int] == [70008])
        #expect(nsError.userInfo[MSALHTTPResponseCodeKey] as? String == "400")
        #expect(nsError.userInfo[MSALCorrelationIDKey] as? String == "6F0E2A4B-3C8E-4D2A-9E51-6E8F3C1D2B7A")
        #expect(nsError.userInfo[MSALErrorDescriptionKey] as? String == "refresh token expired")
    }

    @Test("The Swift catch idiom works")
    func swiftIdiom() {
        func fail() throws { throw MSALFailure(.interactionRequired, message: "x") }
        var caught = false
        do {
            try fail()
        } catch let error as MSALFailure where error.code == .interactionRequired {
            caught = true
        } catch {
            Issue.record("wrong error \(error)")
        }
        #expect(caught)
    }

    @Test("Every JOSE code maps to its own internal code")
    func joseMapping() {
        let mapped = JOSEError.Code.allCases.map { MSALInternalError(joseCode: $0) }
        #expect(Set(mapped).count == JOSEError.Code.allCases.count)
        let error = MSALFailure(JOSEError(.invalidSignature, "RS256 signature does not verify"))
        #expect(error.code == .internal)
        #expect(error.internalCode == .jwtInvalidSignature)
        #expect(error.message.contains("signature does not verify"))
        #expect((error as NSError).userInfo[MSALInternalErrorCodeKey] as? Int == -46014)
    }
}
