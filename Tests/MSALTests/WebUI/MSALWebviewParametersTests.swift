import Foundation
import Testing

@testable import MSAL

/// A web UI that captured the redirect itself (as an embedded web view would).
struct CapturingWebUI: MSALWebUI {
    let answer: URL?

    func present(authorizationURL: URL, redirectURI: URL) async throws -> URL? {
        answer
    }
}

@Suite("MSALWebviewParameters and the web UI error surface")
struct MSALWebviewParametersTests {
    @Test("Each initializer picks its web UI")
    func webUIs() async throws {
        #expect(MSALWebviewParameters().webUI is MSALSystemBrowser)
        let command = try #require(MSALWebviewParameters(browserCommand: ["firefox", "%s"]).webUI as? MSALBrowserCommand)
        #expect(command.arguments == ["firefox", "%s"])
        let captured = try #require(URL(string: "http://localhost:1234/?code=c&state=s"))
        let parameters = MSALWebviewParameters(webUI: CapturingWebUI(answer: captured))
        let url = try #require(URL(string: "https://login.example/authorize"))
        #expect(try await parameters.webUI.present(authorizationURL: url, redirectURI: url) == captured)
    }

    @Test("Defaults and settable values")
    func values() {
        let parameters = MSALWebviewParameters()
        #expect(parameters.timeout == 300)
        #expect(MSALWebviewParameters.defaultTimeout == 300)
        #expect(parameters.successPageHTML == nil)
        #expect(parameters.failurePageHTML == nil)
        parameters.timeout = 42
        parameters.successPageHTML = "<p>ok</p>"
        parameters.failurePageHTML = "<p>{{error}}</p>"
        #expect(parameters.timeout == 42)
        #expect(parameters.successPageHTML == "<p>ok</p>")
        #expect(parameters.failurePageHTML == "<p>{{error}}</p>")
    }

    @Test("Values can be set and read from many tasks at once")
    func concurrentAccess() async {
        let parameters = MSALWebviewParameters()
        await withTaskGroup(of: Void.self) { group in
            for index in 1...200 {
                group.addTask {
                    parameters.timeout = TimeInterval(index)
                    parameters.successPageHTML = "page \(index)"
                    _ = parameters.timeout
                    _ = parameters.failurePageHTML
                }
            }
        }
        #expect((1...200).contains(Int(parameters.timeout)))
        #expect(parameters.successPageHTML?.hasPrefix("page ") == true)
    }

    @Test("Web UI internal codes and the authorization URL in userInfo")
    func errorSurface() throws {
        #expect(MSALInternalError.browserLaunchFailed.rawValue == -49001)
        #expect(MSALInternalError.redirectTimeout.rawValue == -49002)
        #expect(MSALInternalError.loopbackListenerFailed.rawValue == -49003)
        #expect(MSALInternalError.invalidRedirect.rawValue == -49004)
        #expect(MSALAuthorizationURLKey == "MSALAuthorizationURLKey")
        var error = MSALFailure(.internal, internalCode: .browserLaunchFailed, message: "no browser")
        #expect((error as NSError).userInfo[MSALAuthorizationURLKey] == nil)
        let url = try #require(URL(string: "https://login.example/authorize?x=1"))
        error.authorizationURL = url
        #expect((error as NSError).userInfo[MSALAuthorizationURLKey] as? URL == url)
        #expect(MSALFailure.loopbackCanceled().code == .userCanceled)
        #expect(MSALFailure.loopbackCanceled().internalCode == .internalErrorSessionCanceled)
    }
}
