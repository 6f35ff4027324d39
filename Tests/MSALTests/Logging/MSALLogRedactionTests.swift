import Foundation
import Testing

@testable import MSAL

extension LoggingTests {
    @Suite("Log redaction: JWTs, secret parameters, bearer credentials, email addresses")
    struct MSALLogRedactionTests {
        static func redact(_ text: String) -> String { MSALLogRedaction.redactingSecrets(in: text) }

        static func base64URL(_ text: String) -> String {
            Data(text.utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }

        @Test("JWS, unsecured JWT and JWE compact serializations are redacted wherever they stand")
        func jwts() {
            let header = Self.base64URL(#"{"alg":"RS256","typ":"JWT","kid":"abc"}"#)
            let payload = Self.base64URL(#"{"sub":"1234","name":"Alice","preferred_username":"alice@contoso.com"}"#)
            let jws = "\(header).\(payload).\(Self.base64URL(String(repeating: "s", count: 64)))"
            #expect(Self.redact("id token \(jws) received") == "id token <redacted> received")
            #expect(Self.redact("(\(jws))") == "(<redacted>)")
            #expect(Self.redact(jws) == "<redacted>")

            let unsecured = "\(Self.base64URL(#"{"alg":"none"}"#)).\(payload)."
            #expect(Self.redact("token=\(unsecured)") == "token=<redacted>")
            #expect(Self.redact("t \(unsecured) end") == "t <redacted> end")

            let pretty = Self.base64URL("{\n \"alg\": \"RS256\"\n}")
            #expect(pretty.hasPrefix("ew"))
            #expect(Self.redact("x \(pretty).\(payload).sig") == "x <redacted>")

            let jwe =
                "\(Self.base64URL(#"{"alg":"RSA-OAEP","enc":"A256GCM"}"#)).OKOawDo13gRp2ojaHV7LFpZcgV7T6DVZKTyKOMTYUmKoTCVJRgckCL9kiMT03JGeipsEdY3mx_etLbbWSrFr05kLzcSr4qKAq7YN7e9jwQRb23nfa6c9d-StnImGyFDbSv04uVuxIp5Zms1gNxKKK2Da14B8S4rzVRltdYwam_lDp5XnZAYpQdb76FdIKLaVmqgfwX7XWRxv2322i-vDxRfqNzo_tETKzpVLzfiwQyeyPGLBIO56YJ7eObdv0je81860ppamavo35UgoRdbYaBcoh9QcfylQr66oc6vFWXRcZ_ZT2LawVCWTIy3brGPi6UklfCpIMfIjf7iGdXKHzg.48V1_ALb6US04U3b.5eym8TW_c8SuK0ltJ3rpYIzOeDQz7TALvtu6UG9oMo4vpzs9tX_EFShS8iB7j6jiSdiwkIr3ajwQzaBtQD_A.XFBoMYUZodetZdvTiFvSkQ"
            #expect(Self.redact("jwe \(jwe)") == "jwe <redacted>")

            let opaque = "\(String(repeating: "A", count: 20)).\(String(repeating: "b", count: 16)).\(String(repeating: "C", count: 30))"
            #expect(Self.redact("x \(opaque) y") == "x <redacted> y")
        }

        @Test("Host names, scopes, versions, UUIDs and home account ids are not mistaken for JWTs")
        func notJWTs() {
            let texts = [
                "POST https://login.microsoftonline.com/common/oauth2/v2.0/token",
                "scopes https://graph.microsoft.com/User.Read User.Read.All offline_access",
                "MSAL.Swift.Linux 0.1.0",
                "account 00000000-0000-0000-40c0-3bac188d01d1.9188040d-6c67-4c5b-b112-36a304b66dad",
                "tenant contoso-very-long-tenant-name-1234.b2clogin.com",
                "correlation 6f0e2a4b-3c8e-4d2a-9e51-6e8f3c1d2b7a",
                "eyes.are.open",
                "error_code=50126 error_codes=[50126] codes=1 barcode=9 status code 400",
                "grant_type=refresh_token&client_id=abc",
                "a bearer token is required; Bearer scheme",
                "code= empty, code=&state=",
            ]
            for text in texts {
                #expect(Self.redact(text) == text)
            }
        }

        @Test("Values of secret parameters in query strings and form bodies are redacted; other parameters kept")
        func queryAndFormValues() {
            #expect(
                Self.redact("http://localhost:8400/?code=0.AAAA-bbb_ccc%2Fd&session_state=s1&state=xyz")
                    == "http://localhost:8400/?code=<redacted>&session_state=s1&state=<redacted>")
            #expect(
                Self.redact(
                    "https://login.microsoftonline.com/common/oauth2/v2.0/authorize?client_id=abc&state=s-1&nonce=n-2&code_challenge=c-3&code_challenge_method=S256"
                )
                    == "https://login.microsoftonline.com/common/oauth2/v2.0/authorize?client_id=abc&state=<redacted>&nonce=<redacted>&code_challenge=<redacted>&code_challenge_method=S256"
            )
            #expect(
                Self.redact("grant_type=refresh_token&refresh_token=0.ARoA.secret-part&client_id=abc&scope=openid")
                    == "grant_type=refresh_token&refresh_token=<redacted>&client_id=abc&scope=openid")
            #expect(
                Self.redact("code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk&code=x")
                    == "code_verifier=<redacted>&code=<redacted>")
            #expect(
                Self.redact("client_assertion_type=urn:jwt-bearer&client_assertion=abc.def.ghi")
                    == "client_assertion_type=urn:jwt-bearer&client_assertion=<redacted>")
            #expect(
                Self.redact("device_code=GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS; interval=5")
                    == "device_code=<redacted>; interval=5")
            #expect(
                Self.redact("access_token=opaque id_token=x client_secret=y password=p assertion=a")
                    == "access_token=<redacted> id_token=<redacted> client_secret=<redacted> password=<redacted> assertion=<redacted>")
            #expect(
                Self.redact("#access_token=abc&token_type=Bearer&expires_in=3599")
                    == "#access_token=<redacted>&token_type=Bearer&expires_in=3599")
            #expect(Self.redact("CODE=abc Refresh_Token=def") == "CODE=<redacted> Refresh_Token=<redacted>")
            #expect(Self.redact("x.code=abc") == "x.code=<redacted>")
        }

        @Test("Secret members of JSON text are redacted, escaped quotes included")
        func jsonMembers() {
            #expect(
                Self.redact(
                    #"{"token_type":"Bearer","access_token":"abc.def","expires_in":3599,"refresh_token" : "r\"q","scope":"openid"}"#)
                    == #"{"token_type":"Bearer","access_token":"<redacted>","expires_in":3599,"refresh_token" : "<redacted>","scope":"openid"}"#
            )
            #expect(Self.redact(#"{"code": "unterminated"#) == #"{"code": "<redacted>"#)
            #expect(Self.redact(#"{"error":"invalid_grant","error_codes":[70008]}"#) == #"{"error":"invalid_grant","error_codes":[70008]}"#)
        }

        @Test("Bearer credentials are redacted, whatever the case")
        func bearer() {
            #expect(Self.redact("Authorization: Bearer eyJ0eXAiOiJKV1QifQ.eyJzdWIiOiIxIn0.c2ln") == "Authorization: Bearer <redacted>")
            #expect(Self.redact("authorization: bearer  abc123XYZ, next") == "authorization: bearer  <redacted>, next")
            #expect(Self.redact("BEARER opaque-token-value-here") == "BEARER <redacted>")
            #expect(Self.redact(#"header "Bearer Zm9vYmFy""#) == #"header "Bearer <redacted>""#)
        }

        @Test("Text without secrets comes back unchanged, non-ASCII included")
        func unchanged() {
            for text in ["", "plain", "Grüße aus Köln — 東京", "=&?.", "code", "Bearer", "eyJ"] {
                #expect(Self.redact(text) == text)
            }
            #expect(Self.redact("café code=é&x=1") == "café code=<redacted>&x=1")
        }

        @Test("Email addresses are found and masked; other @ signs are left alone")
        func emails() {
            #expect(
                MSALLogRedaction.maskingEmailAddresses(in: "User 'bob.smith+x@fabrikam.co.uk' not found.")
                    == ("User 'Masked(not-null)' not found.", true))
            #expect(
                MSALLogRedaction.maskingEmailAddresses(in: "a@b.com and c@d.org")
                    == ("Masked(not-null) and Masked(not-null)", true))
            #expect(MSALLogRedaction.maskingEmailAddresses(in: "mail alice@contoso.com.") == ("mail Masked(not-null).", true))
            for text in ["no at sign", "@ alone", "user@localhost", "trailing@", "@domain.com", "x @ y.z"] {
                #expect(MSALLogRedaction.maskingEmailAddresses(in: text) == (text, false))
            }
        }
    }
}
