import Foundation
import Testing

@testable import MSAL

extension LoggingTests {
    @Suite("Log messages: typed interpolation, masking levels, containsPII")
    struct MSALLogMessageTests {
        static let correlation = UUID(uuidString: "6F0E2A4B-3C8E-4D2A-9E51-6E8F3C1D2B7A")!

        /// One message with every kind of piece.
        static func sample() -> MSALLogMessage {
            let tokenURL = URL(string: "https://login.microsoftonline.com/common/oauth2/v2.0/token?code=abc")
            let scopes = ["User.Read", "openid"]
            return """
                user \(euii: "alice@contoso.com") account \(oii: "uid-1.utid-2") scopes \(public: scopes) \
                n=\(3) ok=\(true) t=\(1.5) id=\(correlation) code \(MSALError.interactionRequired) \
                missing \(euii: nil) host \(host: tokenURL)
                """
        }

        @Test("Mask all PII: EUII and OII masked, nil masked as Masked(null), containsPII false")
        func maskAll() {
            let (text, containsPII) = Self.sample().rendered(maskingLevel: .settingsMaskAllPII)
            #expect(
                text == """
                    user Masked(not-null) account Masked(not-null) scopes User.Read openid \
                    n=3 ok=true t=1.5 id=6f0e2a4b-3c8e-4d2a-9e51-6e8f3c1d2b7a code interactionRequired (-50002) \
                    missing Masked(null) host login.microsoftonline.com
                    """)
            #expect(!containsPII)
        }

        @Test("Mask EUII only: OII shown (containsPII true), EUII masked")
        func maskEUIIOnly() {
            let (text, containsPII) = Self.sample().rendered(maskingLevel: .settingsMaskEUIIOnly)
            #expect(text.hasPrefix("user Masked(not-null) account uid-1.utid-2 scopes"))
            #expect(text.contains("missing Masked(null)"))
            #expect(!text.contains("alice"))
            #expect(containsPII)
        }

        @Test("Mask secrets only: EUII and OII shown, nil shown as (null)")
        func maskSecretsOnly() {
            let (text, containsPII) = Self.sample().rendered(maskingLevel: .settingsMaskSecretsOnly)
            #expect(text.hasPrefix("user alice@contoso.com account uid-1.utid-2 scopes"))
            #expect(text.contains("missing (null)"))
            #expect(containsPII)
        }

        @Test("containsPII is false when the only personal data shown is absent, or only EUII is present under EUII masking")
        func containsPIIOnlyForShownValues() {
            let onlyNil: MSALLogMessage = "account \(oii: nil) user \(euii: "")"
            #expect(onlyNil.rendered(maskingLevel: .settingsMaskSecretsOnly) == ("account (null) user ", false))
            #expect(onlyNil.rendered(maskingLevel: .settingsMaskAllPII) == ("account Masked(null) user Masked(null)", false))

            let onlyEUII: MSALLogMessage = "user \(euii: "bob")"
            #expect(onlyEUII.rendered(maskingLevel: .settingsMaskEUIIOnly) == ("user Masked(not-null)", false))
            #expect(onlyEUII.rendered(maskingLevel: .settingsMaskSecretsOnly) == ("user bob", true))
        }

        @Test("pii: is treated as EUII, the stricter class")
        func piiIsEUII() {
            let message: MSALLogMessage = "name \(pii: "Alice Smith")"
            #expect(message.rendered(maskingLevel: .settingsMaskEUIIOnly).text == "name Masked(not-null)")
            #expect(message.rendered(maskingLevel: .settingsMaskSecretsOnly).text == "name Alice Smith")
        }

        @Test("A plain literal and absent safe values")
        func literalsAndOptionals() {
            let plain: MSALLogMessage = "Starting silent request"
            #expect(plain.rendered(maskingLevel: .settingsMaskAllPII) == ("Starting silent request", false))
            let status: Int? = nil
            let internalCode: MSALInternalError? = .internalErrorInvalidGrant
            let message: MSALLogMessage = "status \(status) internal \(internalCode) path \(public: nil as String?) host \(host: nil)"
            #expect(
                message.rendered(maskingLevel: .settingsMaskAllPII).text
                    == "status (null) internal internalErrorInvalidGrant (-42004) path (null) host (null)")
        }

        @Test("Public text and scope sets are shown as they are, but secrets in them are still redacted")
        func publicTextIsRedacted() {
            let path = "/common/oauth2/v2.0/authorize?client_id=abc&code=M.C507_BAY.2.U.secret&state=x"
            let message: MSALLogMessage =
                "redirect \(public: path) header \(public: "Authorization: Bearer eyJ0eXAiOiJKV1QifQ.eyJzdWIiOiIxIn0.c2ln")"
            let text = message.rendered(maskingLevel: .settingsMaskSecretsOnly).text
            #expect(
                text
                    == "redirect /common/oauth2/v2.0/authorize?client_id=abc&code=<redacted>&state=<redacted> header Authorization: Bearer <redacted>"
            )
        }

        @Test("Personal data shown at the loosest masking is still redacted if it looks like a secret")
        func personalDataIsRedacted() {
            let message: MSALLogMessage = "claims \(oii: #"{"access_token": "opaque-value", "oid": "1234"}"#)"
            #expect(
                message.rendered(maskingLevel: .settingsMaskSecretsOnly).text
                    == #"claims {"access_token": "<redacted>", "oid": "1234"}"#)
        }

        @Test("An MSALFailure: codes, HTTP status, STS codes and OAuth error; email addresses in its text are EUII; secrets redacted")
        func msalError() {
            var error = MSALFailure(
                .interactionRequired, internalCode: .internalErrorInvalidGrant,
                message: "AADSTS50034: The user account bob@fabrikam.com does not exist. refresh_token=0.ARoAsecret",
                oauthError: "invalid_grant", oauthSubError: "bad_token")
            error.httpStatusCode = 400
            error.stsErrorCodes = [50034]
            let message: MSALLogMessage = "Refresh failed: \(error: error)"

            let masked = message.rendered(maskingLevel: .settingsMaskEUIIOnly)
            #expect(
                masked.text == """
                    Refresh failed: MSALError interactionRequired (-50002), internal internalErrorInvalidGrant (-42004), HTTP 400, STS 50034, \
                    oauth invalid_grant/bad_token: AADSTS50034: The user account Masked(not-null) does not exist. refresh_token=<redacted>
                    """)
            #expect(!masked.containsPII)

            let shown = message.rendered(maskingLevel: .settingsMaskSecretsOnly)
            #expect(shown.text.contains("The user account bob@fabrikam.com does not exist. refresh_token=<redacted>"))
            #expect(shown.containsPII)
        }

        @Test("A throttled MSALFailure says so")
        func throttledError() {
            var error = MSALFailure(
                .internal, internalCode: .internalErrorUnhandledResponse, message: "The request to host failed with HTTP 429")
            error.isThrottlingCacheHit = true
            let message: MSALLogMessage = "\(error: error)"
            #expect(
                message.rendered(maskingLevel: .settingsMaskAllPII).text
                    == "MSALError internal (-50000), internal internalErrorUnhandledResponse (-42007), throttled: The request to host failed with HTTP 429"
            )
        }

        struct OtherError: Error, CustomStringConvertible {
            var description: String { "lookup for carol@example.org failed at https://idp.example/cb?code=secret123&x=1" }
        }

        @Test("Another error: its type and description, masked and redacted; CancellationError by name")
        func otherErrors() {
            let message: MSALLogMessage = "failed: \(error: OtherError())"
            #expect(
                message.rendered(maskingLevel: .settingsMaskAllPII)
                    == ("failed: OtherError: lookup for Masked(not-null) failed at https://idp.example/cb?code=<redacted>&x=1", false))
            #expect(
                message.rendered(maskingLevel: .settingsMaskSecretsOnly)
                    == ("failed: OtherError: lookup for carol@example.org failed at https://idp.example/cb?code=<redacted>&x=1", true))
            let canceled: MSALLogMessage = "\(error: CancellationError())"
            #expect(canceled.rendered(maskingLevel: .settingsMaskAllPII).text == "CancellationError")
        }

        @Test("Masking levels and log levels keep MSAL for iOS raw values and order")
        func rawValues() {
            #expect(MSALLogLevel.allCases.map(\.rawValue) == [0, 1, 2, 3, 4])
            #expect(MSALLogLevel.last == .verbose)
            #expect(MSALLogLevel.nothing < .error && MSALLogLevel.error < .warning && MSALLogLevel.info < .verbose)
            #expect(MSALLogMaskingLevel.allCases.map(\.rawValue) == [0, 1, 2])
            #expect(MSALLogLevel.allCases.map(\.swiftLogLevel) == [nil, .error, .warning, .info, .debug])
        }
    }
}
