import Foundation
import Testing

@testable import MSAL

/// Every "Authority and discovery" URL case of the bad-input list, each its own test.
@Suite("Authority URLs that must be rejected")
struct AuthorityURLRejectionTests {
    /// Expects `text` to be rejected by `MSALAuthority(url:)` and by `MSALAuthority.authority(url:)`.
    private func reject(
        _ text: String, options: MSALAuthorityOptions = [], mentioning fragments: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let authorityURL = try url(text, sourceLocation: sourceLocation)
        expectMSALError(.invalidAuthority, mentioning: fragments, sourceLocation: sourceLocation) {
            _ = try MSALAuthority(url: authorityURL, options: options)
        }
        expectMSALError(.invalidAuthority, mentioning: fragments, sourceLocation: sourceLocation) {
            _ = try MSALAuthority.authority(url: authorityURL, options: options)
        }
    }

    // MARK: Scheme

    @Test("http:// is rejected")
    func plainHTTP() throws {
        try reject("http://login.microsoftonline.com/common", mentioning: ["http", "loopback"])
    }

    @Test("http:// to a loopback host needs .allowInsecureLoopback")
    func loopbackHTTPWithoutOptIn() throws {
        for text in ["http://127.0.0.1:8080/tenant", "http://localhost:8080/tenant", "http://[::1]:8080/tenant"] {
            try reject(text, mentioning: ["allowInsecureLoopback"])
        }
    }

    @Test("http://evil.com is rejected even with .allowInsecureLoopback")
    func nonLoopbackHTTPWithOptIn() throws {
        try reject("http://evil.com/common", options: .allowInsecureLoopback, mentioning: ["loopback"])
        try reject("http://127.0.0.2/common", options: .allowInsecureLoopback, mentioning: ["loopback"])
        try reject("http://localhost.evil.com/common", options: .allowInsecureLoopback, mentioning: ["loopback"])
    }

    @Test("Schemes other than https and http are rejected")
    func otherSchemes() throws {
        try reject("ftp://login.microsoftonline.com/common", mentioning: ["scheme"])
        try reject("file:///etc/passwd", mentioning: ["scheme"])
        try reject("urn:login.microsoftonline.com:common", mentioning: ["absolute https"])
        expectMSALError(.invalidAuthority, mentioning: ["scheme"]) {
            _ = try MSALAuthority(url: URL(fileURLWithPath: "/common"))
        }
    }

    // MARK: Userinfo

    @Test("Userinfo trick login.microsoftonline.com@evil.com is rejected")
    func userinfoHostTrick() throws {
        try reject("https://login.microsoftonline.com@evil.com/common", mentioning: ["userinfo"])
    }

    @Test("user:password@ userinfo is rejected")
    func userinfoCredentials() throws {
        try reject("https://user:pw@login.microsoftonline.com/common", mentioning: ["userinfo"])
        try reject("https://@login.microsoftonline.com/common", mentioning: ["userinfo"])
    }

    // MARK: Path tricks

    @Test("Backslashes are rejected")
    func backslash() throws {
        // Foundation's URL(string:) refuses these texts itself; the authority parser must refuse them too.
        for text in [
            "https://login.microsoftonline.com\\common", "https://login.microsoftonline.com/common\\..\\evil",
            "https://evil.com\\@login.microsoftonline.com/common",
        ] {
            expectMSALError(.invalidAuthority, mentioning: ["backslash"]) {
                _ = try AuthorityComponents.parse(text, kind: nil, options: [])
            }
            if let parsed = URL(string: text) {
                expectMSALError(.invalidAuthority) { _ = try MSALAuthority(url: parsed) }
            }
        }
    }

    @Test("Dot segments .. and . are rejected")
    func dotSegments() throws {
        try reject("https://login.microsoftonline.com/evil/../common", mentioning: ["dot segment"])
        try reject("https://login.microsoftonline.com/common/..", mentioning: ["dot segment"])
        try reject("https://login.microsoftonline.com/./common", mentioning: ["dot segment"])
    }

    @Test("Percent-encoded dot segments %2e%2e are rejected")
    func percentEncodedDots() throws {
        try reject("https://login.microsoftonline.com/%2e%2e/common", mentioning: ["percent"])
        try reject("https://login.microsoftonline.com/%2E%2E/common", mentioning: ["percent"])
    }

    @Test("An encoded slash %2F in the tenant is rejected")
    func percentEncodedSlash() throws {
        try reject("https://login.microsoftonline.com/common%2Fevil", mentioning: ["percent"])
        try reject("https://login.microsoftonline.com/common%2fevil", mentioning: ["percent"])
    }

    // MARK: Query and fragment

    @Test("A query ?p= is rejected")
    func query() throws {
        try reject("https://login.microsoftonline.com/common?p=B2C_1_signin", mentioning: ["query"])
        try reject("https://fabrikamb2c.b2clogin.com/fabrikamb2c.onmicrosoft.com?p=B2C_1_signin", mentioning: ["query"])
    }

    @Test("A bare ? is rejected")
    func bareQuestionMark() throws {
        try reject("https://login.microsoftonline.com/common?", mentioning: ["query"])
    }

    @Test("A fragment is rejected")
    func fragment() throws {
        try reject("https://login.microsoftonline.com/common#frag", mentioning: ["fragment"])
        try reject("https://login.microsoftonline.com/common#", mentioning: ["fragment"])
    }

    // MARK: Hosts

    @Test("An IDN host written with non-ASCII letters is rejected")
    func idnHost() throws {
        // As a percent-encoded URL (what URL(string:) keeps when the host is written encoded).
        try reject("https://l%C3%B6gin.microsoftonline.com/common", mentioning: ["percent"])
        // As text, before any URL parser could convert it.
        expectMSALError(.invalidAuthority, mentioning: ["non-ASCII"]) {
            _ = try AuthorityComponents.parse("https://lögin.microsoftonline.com/common", kind: nil, options: [])
        }
    }

    @Test("A Unicode host that Foundation converts to punycode never becomes the trusted host")
    func idnHostAfterPunycode() async throws {
        // On this toolchain URL(string:) turns the Unicode host into its xn-- form. The parser only sees
        // ASCII then; it must not treat it as login.microsoftonline.com, so discovery must validate it.
        guard let foundationURL = URL(string: "https://lögin.microsoftonline.com/common") else {
            // Foundation refused the text: nothing reaches the authority parser, which is just as safe.
            return
        }
        let text = foundationURL.absoluteString
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else {
            expectMSALError(.invalidAuthority) { _ = try MSALAuthority(url: foundationURL) }
            return
        }
        let authority = try MSALAuthority(url: foundationURL)
        #expect(authority.host.hasPrefix("xn--"))
        #expect(authority.host != "login.microsoftonline.com")
        #expect(!KnownClouds.trustedHosts.contains(authority.host))
        let harness = ResolverHarness()
        let invalid = try AuthorityFixtures.authority("instance_discovery_invalid_instance.json")
        let discovery = AuthorityURLs.discovery(authorityOrigin: "https://\(authority.host)", tenant: "common")
        harness.transport.on(discovery, json: invalid, status: 400)
        await expectMSALError(.internalErrorFailedAuthorityValidation) { _ = try await harness.resolve(authority) }
        #expect(harness.transport.requestedURLs == [discovery])
    }

    @Test("A percent-encoded host is rejected")
    func percentEncodedHost() throws {
        try reject("https://login%2Emicrosoftonline.com/common", mentioning: ["percent"])
        try reject("https://%6Cogin.microsoftonline.com/common", mentioning: ["percent"])
    }

    @Test("An empty host is rejected")
    func emptyHost() throws {
        try reject("https:///common", mentioning: ["no host"])
        try reject("https://:443/common", mentioning: ["host"])
    }

    @Test("Malformed host names are rejected")
    func malformedHostNames() throws {
        try reject("https://login..microsoftonline.com/common", mentioning: ["label"])
        try reject("https://login.microsoftonline.com./common", mentioning: ["label"])
        try reject("https://-login.microsoftonline.com/common", mentioning: ["hyphen"])
        try reject("https://login_x.microsoftonline.com/common", mentioning: ["host contains"])
        try reject("https://[::2]/common", mentioning: ["host"])
        try reject("https://" + String(repeating: "a", count: 64) + ".com/common", mentioning: ["label"])
    }

    @Test("A bad port is rejected")
    func badPort() throws {
        try reject("https://login.microsoftonline.com:99999/common", mentioning: ["port"])
        try reject("https://login.microsoftonline.com:65536/common", mentioning: ["port"])
        try reject("https://login.microsoftonline.com:0/common", mentioning: ["port"])
        try reject("https://login.microsoftonline.com:/common", mentioning: ["port"])
        try reject("http://[::1]:/tenant", options: .allowInsecureLoopback, mentioning: ["port"])
        expectMSALError(.invalidAuthority, mentioning: ["port"]) {
            _ = try AuthorityComponents.parse("https://login.microsoftonline.com:44a/common", kind: nil, options: [])
        }
    }

    // MARK: Path shape

    @Test("An empty path segment // is rejected")
    func emptySegment() throws {
        try reject("https://login.microsoftonline.com//common", mentioning: ["empty segment"])
        try reject("https://login.microsoftonline.com/common//", mentioning: ["empty segment"])
        try reject("https://fabrikamb2c.b2clogin.com/fabrikamb2c.onmicrosoft.com//B2C_1_signin", mentioning: ["empty segment"])
    }

    @Test("A Microsoft Entra authority without a tenant is rejected")
    func missingTenant() throws {
        try reject("https://login.microsoftonline.com", mentioning: ["no tenant"])
        try reject("https://login.microsoftonline.com/", mentioning: ["no tenant"])
        expectMSALError(.invalidAuthority, mentioning: ["no tenant"]) {
            _ = try MSALAADAuthority(url: url("https://login.microsoftonline.com"))
        }
    }

    @Test("A Microsoft Entra authority with more than one path segment is rejected")
    func tooManySegmentsForAAD() throws {
        try reject("https://login.microsoftonline.com/common/oauth2", mentioning: ["exactly one tenant segment"])
        try reject("https://login.microsoftonline.com/common/oauth2/v2.0/authorize", mentioning: ["exactly one tenant segment"])
        expectMSALError(.invalidAuthority, mentioning: ["exactly one tenant segment"]) {
            _ = try MSALAADAuthority(url: url("https://login.microsoftonline.com/contoso.com/extra"))
        }
    }

    @Test("A path character outside the allowed set is rejected")
    func pathCharacters() throws {
        try reject("https://login.microsoftonline.com/con@toso", mentioning: ["path contains `@`"])
        try reject("https://login.microsoftonline.com/contoso:1", mentioning: ["path contains `:`"])
        try reject("https://login.microsoftonline.com/con!toso", mentioning: ["path contains `!`"])
    }

    @Test("Empty and oversized texts are rejected")
    func emptyAndHuge() throws {
        expectMSALError(.invalidAuthority, mentioning: ["empty"]) {
            _ = try AuthorityComponents.parse("", kind: nil, options: [])
        }
        try reject("https://login.microsoftonline.com/" + String(repeating: "a", count: 2100), mentioning: ["2048"])
        expectMSALError(.invalidAuthority, mentioning: ["control"]) {
            _ = try AuthorityComponents.parse("https://login.microsoftonline.com/com\u{0}mon", kind: nil, options: [])
        }
    }

    // MARK: Kind-specific rules

    @Test("ADFS authorities must be exactly /adfs")
    func adfsPathRules() throws {
        try reject("https://fs.contoso.com/adfs/extra", mentioning: ["/adfs"])
        expectMSALError(.invalidAuthority, mentioning: ["/adfs"]) {
            _ = try MSALADFSAuthority(url: url("https://fs.contoso.com/common"))
        }
        expectMSALError(.invalidAuthority, mentioning: ["/adfs"]) {
            _ = try MSALADFSAuthority(url: url("https://fs.contoso.com"))
        }
        expectMSALError(.invalidAuthority, mentioning: ["ADFS"]) {
            _ = try MSALAADAuthority(url: url("https://login.microsoftonline.com/adfs"))
        }
    }

    @Test("B2C authorities need a tenant and a policy")
    func b2cNeedsTenantAndPolicy() throws {
        try reject("https://fabrikamb2c.b2clogin.com/fabrikamb2c.onmicrosoft.com", mentioning: ["/<tenant>/<policy>"])
        try reject("https://fabrikamb2c.b2clogin.com/", mentioning: ["/<tenant>/<policy>"])
        try reject("https://fabrikamb2c.b2clogin.com/tfp/fabrikamb2c.onmicrosoft.com", mentioning: ["/<tenant>/<policy>"])
        try reject("https://fabrikamb2c.b2clogin.com/tfp", mentioning: ["/<tenant>/<policy>"])
        try reject("https://fabrikamb2c.b2clogin.com/fabrikamb2c.onmicrosoft.com/B2C_1_signin/extra", mentioning: ["/<tenant>/<policy>"])
        expectMSALError(.invalidAuthority, mentioning: ["B2C"]) {
            _ = try MSALB2CAuthority(url: url("https://login.microsoftonline.com/common"))
        }
    }

    @Test("CIAM authorities have at most one tenant segment")
    func ciamSegments() throws {
        try reject("https://contoso.ciamlogin.com/contoso.onmicrosoft.com/extra", mentioning: ["one tenant segment"])
        expectMSALError(.invalidAuthority, mentioning: ["host name"]) {
            _ = try MSALCIAMAuthority(url: url("http://[::1]:8080"), options: .allowInsecureLoopback)
        }
    }

    @Test("OpenID Connect issuers follow the same URL rules")
    func oidcRules() throws {
        expectMSALError(.invalidAuthority, mentioning: ["query"]) {
            _ = try MSALOIDCAuthority(url: url("https://accounts.example.com/?tenant=x"))
        }
        expectMSALError(.invalidAuthority, mentioning: ["http"]) {
            _ = try MSALOIDCAuthority(url: url("http://accounts.example.com"))
        }
        expectMSALError(.invalidAuthority, mentioning: ["userinfo"]) {
            _ = try MSALOIDCAuthority(url: url("https://a@accounts.example.com"))
        }
    }

    // MARK: Error idioms

    @Test("The rejection is catchable as MSALFailure and as NSError in MSALErrorDomain")
    func bothErrorIdioms() throws {
        let text = "https://login.microsoftonline.com@evil.com/common"
        do {
            _ = try MSALAuthority(url: url(text))
            Issue.record("accepted \(text)")
        } catch let error as MSALFailure {
            #expect(error.code == .internal)
            #expect(error.internalCode == .invalidAuthority)
            #expect(error.message.contains("userinfo"))
            #expect(error.message.contains(text))
        }
        do {
            _ = try MSALAuthority.authority(url: url(text))
            Issue.record("accepted \(text)")
        } catch {
            let nsError = error as NSError
            #expect(nsError.domain == MSALErrorDomain)
            #expect(nsError.code == MSALError.internal.rawValue)
            #expect(nsError.userInfo[MSALInternalErrorCodeKey] as? Int == MSALInternalError.invalidAuthority.rawValue)
            #expect((nsError.userInfo[MSALErrorDescriptionKey] as? String)?.contains("userinfo") == true)
        }
    }

    @Test("Messages quote control characters and shorten long input")
    func messagesAreSafe() {
        let error = expectMSALError(.invalidAuthority) {
            _ = try AuthorityComponents.parse("https://login.microsoftonline.com/a\u{7}b", kind: nil, options: [])
        }
        #expect(error?.message.contains("\\u{7}") == true)
        #expect(error?.message.unicodeScalars.contains { $0.value < 0x20 } == false)
        let long = expectMSALError(.invalidAuthority) {
            _ = try AuthorityComponents.parse(
                "https://login.microsoftonline.com/" + String(repeating: "x", count: 3000), kind: nil, options: [])
        }
        #expect((long?.message.utf8.count ?? .max) < 400)
    }
}
