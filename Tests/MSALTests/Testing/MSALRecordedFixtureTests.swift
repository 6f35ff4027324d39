import Foundation
import MSALTesting
import Testing

@Suite("MSALRecordedFixture: loading and validation")
struct MSALRecordedFixtureTests {
    static let completeDocument = #"""
        {
          "_comment": "members starting with _ are ignored",
          "name": "complete",
          "description": "Every member of the format.",
          "provenance": [
            {"repo": "AzureAD/microsoft-authentication-library-for-js", "path": "lib/msal-common/docs/performance.md",
             "commit": "980f0b077940119961610d375eddd2c7f72392aa", "blob": "5cb4ce40", "notes": "verbatim"},
            {"notes": "synthetic"}
          ],
          "interactions": [
            {
              "request": {"method": "POST", "url": "https://login.microsoftonline.com/common/oauth2/v2.0/token",
                          "headers": {"x-client-SKU": "MSAL.Swift.Linux"}, "form": {"grant_type": "refresh_token"}},
              "response": {"status": 200, "headers": {"Set-Cookie": ["a=1", "b=2"], "Cache-Control": "no-store"},
                           "body": {"token_type": "Bearer", "expires_in": 3599}},
              "repeatable": true
            },
            {
              "request": {"method": "GET", "url": "https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration"},
              "response": {"status": 429, "headers": {"Retry-After": "120"}, "body_text": "Too many requests"}
            },
            {
              "request": {"method": "GET", "url": "https://login.microsoftonline.com/x"},
              "response": {"status": 204}
            }
          ],
          "conformance": {"operation": "resolve_authority", "input": {"authority": "https://login.microsoftonline.com/common"}}
        }
        """#

    @Test("A complete fixture loads with every member")
    func complete() throws {
        let fixture = try MSALRecordedFixture(data: Data(Self.completeDocument.utf8))
        #expect(fixture.name == "complete")
        #expect(fixture.description == "Every member of the format.")
        #expect(fixture.provenance.count == 2)
        #expect(fixture.provenance[0].repo == "AzureAD/microsoft-authentication-library-for-js")
        #expect(fixture.provenance[0].commit == "980f0b077940119961610d375eddd2c7f72392aa")
        #expect(fixture.provenance[1] == MSALRecordedFixture.Source(notes: "synthetic"))
        #expect(fixture.interactions.count == 3)

        let first = fixture.interactions[0]
        #expect(first.repeatable)
        #expect(first.request.method == .post)
        #expect(first.request.url.absoluteString == "https://login.microsoftonline.com/common/oauth2/v2.0/token")
        #expect(first.request.headers["X-CLIENT-SKU"] == "MSAL.Swift.Linux")
        #expect(first.request.form == ["grant_type": "refresh_token"])
        #expect(first.response.status == 200)
        #expect(first.response.headers.values(of: "set-cookie") == ["a=1", "b=2"])
        #expect(first.response.body == .json(try MSALFixtureJSON(parsing: Array(#"{"token_type":"Bearer","expires_in":3599}"#.utf8))))

        let second = fixture.interactions[1]
        #expect(!second.repeatable)
        #expect(second.request.form == nil)
        #expect(second.request.headers.count == 0)
        #expect(second.response.body == .text("Too many requests"))
        #expect(fixture.interactions[2].response.body == .empty)

        #expect(fixture.conformance?["operation"]?.stringValue == "resolve_authority")
        #expect(fixture.conformance?["input"]?["authority"]?.stringValue == "https://login.microsoftonline.com/common")
        #expect(fixture.sourceURL == nil)
    }

    @Test("A string provenance becomes one entry with notes; provenance and conformance are optional")
    func minimal() throws {
        let fixture = try MSALRecordedFixture(data: Data(#"{"name":"n","description":"","provenance":"made up","interactions":[]}"#.utf8))
        #expect(fixture.provenance == [MSALRecordedFixture.Source(notes: "made up")])
        #expect(fixture.interactions.isEmpty)
        #expect(fixture.conformance == nil)
        let bare = try MSALRecordedFixture(data: Data(#"{"name":"n","description":"d","interactions":[]}"#.utf8))
        #expect(bare.provenance.isEmpty)
    }

    @Test("Loading from a file keeps its URL and names the file in errors")
    func fromFile() throws {
        let url = FixtureLoader.url("Conformance/Authority/aad-common.json")
        let fixture = try MSALRecordedFixture(contentsOf: url)
        #expect(fixture.sourceURL == url)
        #expect(fixture.name == "aad-common")

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-fixture-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let broken = directory.appendingPathComponent("broken.json")
        try Data(
            #"{"name":"n","description":"d","interactions":[{"request":{"url":"https://a.example/"},"response":{"status":200}}]}"#.utf8
        ).write(to: broken)
        let error = #expect(throws: MSALFailure.self) { try MSALRecordedFixture(contentsOf: broken) }
        #expect(error?.internalCode == .internalErrorInvalidParameter)
        #expect(error?.message == #"Fixture broken.json: interactions[0].request: missing "method""#)

        let missing = #expect(throws: MSALFailure.self) {
            try MSALRecordedFixture(contentsOf: directory.appendingPathComponent("absent.json"))
        }
        #expect(missing?.internalCode == .internalErrorInvalidParameter)
        #expect(missing?.message.contains("Cannot read the fixture") == true)
        #expect(missing?.message.contains("absent.json") == true)
    }

    /// Wraps one interaction in an otherwise valid fixture.
    static func withInteraction(_ interaction: String) -> String {
        #"{"name":"n","description":"d","interactions":["# + interaction + "]}"
    }

    static let okResponse = #""response":{"status":200}"#
    static let okRequest = #""request":{"method":"GET","url":"https://login.microsoftonline.com/common"}"#

    static let malformedDocuments: [(String, String)] = [
        ("[]", "document: expected an object, found array"),
        (#"{"description":"d","interactions":[]}"#, #"document: missing "name""#),
        (#"{"name":"","description":"d","interactions":[]}"#, "name: must not be empty"),
        (#"{"name":"n","interactions":[]}"#, #"document: missing "description""#),
        (#"{"name":"n","description":"d"}"#, #"document: missing "interactions""#),
        (#"{"name":"n","description":"d","interactions":{}}"#, "interactions: expected an array, found object"),
        (#"{"name":"n","description":"d","interactions":[],"extra":1}"#, #"unknown member "extra""#),
        (#"{"name":"n","description":"d","interactions":[],"conformance":[]}"#, "conformance: expected an object, found array"),
        (#"{"name":"n","description":"d","interactions":[],"provenance":3}"#, "provenance: expected a string or an array"),
        (#"{"name":"n","description":"d","interactions":[],"provenance":[{"commit":"abc"}]}"#, "provenance[0]: needs at least one of"),
        (
            #"{"name":"n","description":"d","interactions":[],"provenance":[{"repo":1}]}"#,
            "provenance[0].repo: expected a string, found number"
        ),
        (withInteraction("{" + okResponse + "}"), #"interactions[0]: missing "request""#),
        (withInteraction("{" + okRequest + "}"), #"interactions[0]: missing "response""#),
        (withInteraction("{" + okRequest + "," + okResponse + #","repeatible":true}"#), #"interactions[0]: unknown member "repeatible""#),
        (
            withInteraction("{" + okRequest + "," + okResponse + #","repeatable":"yes"}"#),
            "interactions[0].repeatable: expected true or false, found string"
        ),
        (withInteraction(#"{"request":{"url":"https://a.example/"},"# + okResponse + "}"), #"interactions[0].request: missing "method""#),
        (withInteraction(#"{"request":{"method":"GET"},"# + okResponse + "}"), #"interactions[0].request: missing "url""#),
        (
            withInteraction(#"{"request":{"method":"get","url":"https://a.example/"},"# + okResponse + "}"),
            "interactions[0].request.method: expected an upper-case method"
        ),
        (
            withInteraction(#"{"request":{"method":"GET","url":"/common/discovery"},"# + okResponse + "}"),
            "interactions[0].request.url: expected an absolute http or https URL"
        ),
        (
            withInteraction(#"{"request":{"method":"GET","url":"ftp://a.example/x"},"# + okResponse + "}"),
            "interactions[0].request.url: expected an absolute http or https URL"
        ),
        (withInteraction(#"{"request":{"method":"GET","url":"https://a.example/x#frag"},"# + okResponse + "}"), "cannot have a fragment"),
        (
            withInteraction(#"{"request":{"method":"GET","url":"https://u:p@a.example/x"},"# + okResponse + "}"),
            "cannot have user information"
        ),
        (
            withInteraction(#"{"request":{"method":"GET","url":5},"# + okResponse + "}"),
            "interactions[0].request.url: expected a string, found number"
        ),
        (
            withInteraction(#"{"request":{"method":"GET","url":"https://a.example/","headers":{"X-A":1}},"# + okResponse + "}"),
            "interactions[0].request.headers.X-A: expected a string, found number"
        ),
        (
            withInteraction(#"{"request":{"method":"GET","url":"https://a.example/","headers":{"X A":"1"}},"# + okResponse + "}"),
            #""X A" is not a valid header name"#
        ),
        (
            withInteraction(#"{"request":{"method":"GET","url":"https://a.example/","headers":[]},"# + okResponse + "}"),
            "interactions[0].request.headers: expected an object, found array"
        ),
        (
            withInteraction(#"{"request":{"method":"POST","url":"https://a.example/","form":{"a":true}},"# + okResponse + "}"),
            "interactions[0].request.form.a: expected a string, found boolean"
        ),
        (withInteraction("{" + okRequest + #","response":{}}"#), #"interactions[0].response: missing "status""#),
        (
            withInteraction("{" + okRequest + #","response":{"status":"200"}}"#),
            "interactions[0].response.status: expected an integer from 100 to 599"
        ),
        (
            withInteraction("{" + okRequest + #","response":{"status":42}}"#),
            "interactions[0].response.status: expected an integer from 100 to 599"
        ),
        (
            withInteraction("{" + okRequest + #","response":{"status":200.5}}"#),
            "interactions[0].response.status: expected an integer from 100 to 599"
        ),
        (
            withInteraction("{" + okRequest + #","response":{"status":200,"body":{},"body_text":""}}"#),
            #"give either "body" or "body_text", not both"#
        ),
        (
            withInteraction("{" + okRequest + #","response":{"status":200,"body_text":{}}}"#),
            "interactions[0].response.body_text: expected a string, found object"
        ),
        (
            withInteraction("{" + okRequest + #","response":{"status":200,"headers":{"A":[]}}}"#),
            "interactions[0].response.headers.A: expected a string or a non-empty array of strings"
        ),
        (
            withInteraction("{" + okRequest + #","response":{"status":200,"headers":{"A":[1]}}}"#),
            "interactions[0].response.headers.A: expected a string or a non-empty array of strings"
        ),
        (withInteraction("{" + okRequest + #","response":{"status":200,"json":{}}}"#), #"interactions[0].response: unknown member "json""#),
    ]

    @Test("Malformed fixtures fail with a message naming the member", arguments: malformedDocuments)
    func malformed(document: String, expected: String) {
        let error = #expect(throws: MSALFailure.self) { try MSALRecordedFixture(data: Data(document.utf8)) }
        #expect(error?.code == .internal)
        #expect(error?.internalCode == .internalErrorInvalidParameter)
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "no error")")
    }

    @Test("Invalid JSON fails with invalidJSON")
    func invalidJSON() {
        let error = #expect(throws: MSALFailure.self) {
            try MSALRecordedFixture(data: Data(#"{"name":"n","name":"m"}"#.utf8))
        }
        #expect(error?.internalCode == .invalidJSON)
        #expect(error?.message.contains(#"the member "name" more than once"#) == true)
    }

    @Test("A JSON body replays compactly with a JSON Content-Type; a given Content-Type is kept")
    func replayedResponse() throws {
        let json = MSALRecordedFixture.Response(status: 200, body: .json(try MSALFixtureJSON(parsing: Array(#"{ "a" : [1, 2] }"#.utf8))))
        #expect(json.httpResponse.body == Array(#"{"a":[1,2]}"#.utf8))
        #expect(json.httpResponse.headers["content-type"] == "application/json; charset=utf-8")

        let custom = MSALRecordedFixture.Response(status: 200, headers: ["content-type": "text/json"], body: .json(.array([])))
        #expect(custom.httpResponse.headers.values(of: "Content-Type") == ["text/json"])

        let text = MSALRecordedFixture.Response(status: 500, body: .text("{ \"a\" : 1 }"))
        #expect(text.httpResponse.body == Array("{ \"a\" : 1 }".utf8))
        #expect(text.httpResponse.headers.contains("Content-Type") == false)

        #expect(MSALRecordedFixture.Response(status: 204).httpResponse.body.isEmpty)
    }
}
