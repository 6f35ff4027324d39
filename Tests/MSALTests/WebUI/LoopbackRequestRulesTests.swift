import Foundation
import Testing

@testable import MSAL

@Suite("Loopback request rules, query decoding and pages")
struct LoopbackRequestRulesTests {
    let rules: LoopbackRequestRules

    init() throws {
        rules = LoopbackRequestRules(redirectURI: try LoopbackRedirectURI(path: "/cb"), port: 5000, expectedState: "abc")
    }

    @Test("Order of checks: Host, target form, path, method, query, state, code/error")
    func order() {
        let good = "/cb?code=1&state=abc"
        #expect(rules.evaluate(method: "POST", target: "/nope", hostHeaders: ["evil"]) == .reject(status: 400, reason: "Bad Host header."))
        #expect(rules.evaluate(method: "POST", target: "/nope", hostHeaders: ["localhost:5000"]).status == 404)
        #expect(rules.evaluate(method: "POST", target: good, hostHeaders: ["localhost:5000"]).status == 405)
        #expect(rules.evaluate(method: "GET", target: "/cb#x", hostHeaders: ["localhost:5000"]).status == 400)
        #expect(rules.evaluate(method: "GET", target: "*", hostHeaders: ["localhost:5000"]).status == 400)
        #expect(rules.evaluate(method: "GET", target: good, hostHeaders: ["127.0.0.1:5000"]).redirect?.code == "1")
        #expect(rules.evaluate(method: "GET", target: good, hostHeaders: ["localhost:5000", "localhost:5000"]).status == 400)
        #expect(rules.evaluate(method: "GET", target: good, hostHeaders: []).status == 400)
        #expect(
            rules.evaluate(method: "GET", target: "/cb?state=abc", hostHeaders: ["localhost:5000"])
                == .unusable(reason: "The redirect carried neither a code nor an error."))
    }

    @Test("Port 80 also accepts a Host without port")
    func port80() throws {
        let rules = LoopbackRequestRules(redirectURI: try LoopbackRedirectURI(), port: 80, expectedState: "s")
        #expect(rules.evaluate(method: "GET", target: "/?code=1&state=s", hostHeaders: ["localhost"]).redirect != nil)
        #expect(self.rules.evaluate(method: "GET", target: "/cb?code=1&state=abc", hostHeaders: ["localhost"]).status == 400)
    }

    @Test("The redirect URL keeps the query as sent, with stray characters percent-encoded")
    func redirectURL() {
        let raw = rules.evaluate(method: "GET", target: "/cb?code=a%2Bb&state=abc", hostHeaders: ["localhost:5000"])
        #expect(raw.redirect?.url.absoluteString == "http://localhost:5000/cb?code=a%2Bb&state=abc")
        #expect(raw.redirect?.code == "a+b")
        let stray = rules.evaluate(method: "GET", target: "/cb?code=[x]|y&state=abc", hostHeaders: ["localhost:5000"])
        #expect(stray.redirect?.url.absoluteString == "http://localhost:5000/cb?code=%5Bx%5D%7Cy&state=abc")
        #expect(stray.redirect?.code == "[x]|y")
    }

    @Test("State comparison")
    func constantTimeEquals() {
        #expect(LoopbackRequestRules.constantTimeEquals("abc", "abc"))
        #expect(!LoopbackRequestRules.constantTimeEquals("abc", "abd"))
        #expect(!LoopbackRequestRules.constantTimeEquals("abc", "ab"))
        #expect(!LoopbackRequestRules.constantTimeEquals("", "a"))
        #expect(LoopbackRequestRules.constantTimeEquals("", ""))
        // Lengths differing by a multiple of 256 must not compare equal through truncation.
        #expect(!LoopbackRequestRules.constantTimeEquals(String(repeating: "a", count: 256), ""))
        #expect(!LoopbackRequestRules.constantTimeEquals("é", "e\u{301}"), "bytes, not canonical equivalence")
    }

    @Test("Query decoding")
    func query() {
        #expect(LoopbackQuery.parameters("a=1&b=x+y&c=%C3%A9&d&&e=") == .success(["a": "1", "b": "x y", "c": "é", "d": "", "e": ""]))
        #expect(LoopbackQuery.parameters("") == .success([:]))
        #expect(LoopbackQuery.parameters("a=1&a=1") == .failure(.duplicate("a")))
        #expect(LoopbackQuery.parameters("%61=1&a=2") == .failure(.duplicate("a")))
        #expect(LoopbackQuery.parameters("a=%") == .failure(.malformed))
        #expect(LoopbackQuery.parameters("a=%4") == .failure(.malformed))
        #expect(LoopbackQuery.parameters("a=%G0") == .failure(.malformed))
        #expect(LoopbackQuery.parameters("a=%FF") == .failure(.malformed), "not UTF-8")
        #expect(LoopbackQuery.parameters("a=b=c") == .success(["a": "b=c"]))
    }

    @Test("Page sanitizing: escaped, hidden characters removed, cut")
    func sanitize() {
        #expect(LoopbackPages.sanitize("<a href=\"x\">'&'</a>") == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
        #expect(LoopbackPages.sanitize("a\u{0}b\u{1F}c\u{7F}d\u{85}e\u{202E}f\u{2066}g\u{2028}h\u{FEFF}i\r\n\tj") == "abcdefghij")
        #expect(LoopbackPages.sanitize(String(repeating: "x", count: 600)) == String(repeating: "x", count: 512) + "\u{2026}")
        #expect(LoopbackPages.sanitize(String(repeating: "<", count: 600)).count == 512 * 4 + 1, "cut before escaping")
        #expect(LoopbackPages.sanitize("日本語 ok") == "日本語 ok")
        #expect(LoopbackPages.plainText("<b>\u{7}x</b>", limit: 4) == "<b>x\u{2026}")
    }

    @Test("Failure template placeholders are filled once")
    func failureTemplate() {
        let pages = LoopbackPages(successHTML: nil, failureTemplate: "[{{error}}|{{error_description}}|{{error}}|{{x}}|{{]")
        #expect(
            pages.failureHTML(error: "{{error_description}}", description: "<{{error}}>")
                == "[{{error_description}}|&lt;{{error}}&gt;|{{error_description}}|{{x}}|{{]")
        let builtIn = LoopbackPages(successHTML: nil, failureTemplate: nil)
        #expect(builtIn.isBuiltInFailure && builtIn.isBuiltInSuccess)
        #expect(builtIn.failureHTML(error: "access_denied", description: nil).contains("<code>access_denied</code>"))
        #expect(!builtIn.failureHTML(error: "x", description: "y").contains("{{"))
    }
}

extension LoopbackRequestRules.Verdict {
    var status: Int? {
        if case .reject(let status, _) = self { return status }
        return nil
    }

    var redirect: LoopbackRedirect? {
        if case .redirect(let redirect) = self { return redirect }
        return nil
    }
}
