import Foundation
import MSALTesting
import Testing

@testable import MSAL

/// Replays every scenario of `Fixtures/Conformance/Flows/` through the public API: an
/// ``MSALPublicClientApplication`` with the replay transport, a manual clock and an in-memory cache
/// seeded from the scenario's cache document, then runs the scenario's steps (`acquireTokenSilent`,
/// `acquireTokenWithDeviceCode`, `acquireToken` with a scripted web UI) and compares each outcome, the requests and clock waits it caused
/// and the cache afterwards with the step's expectations. Every recorded interaction must be used,
/// and no other request may be sent.
@Suite("Conformance: token flows over recorded traffic")
struct FlowConformanceTests {
    static let files: [URL] = (try? FixtureLoader.jsonFiles(under: "Conformance/Flows")) ?? []

    @Test("The runner has the flow scenarios")
    func hasScenarios() {
        #expect(Self.files.count >= 60)
        let names = Set(Self.files.map { $0.deletingPathExtension().lastPathComponent })
        for required in [
            "silent-cache-hit", "silent-expired-refresh", "silent-refresh-on-fallback", "silent-foci-client-mismatch",
            "silent-guest-tenant", "silent-declined-scopes", "silent-throttled-429", "silent-cae-claims-challenge",
            "device-code-pending-slow-down", "device-code-declined", "device-code-cae-claims-challenge",
            "interactive-captured-redirect", "interactive-options-custom-scheme", "interactive-access-denied",
            "interactive-redirect-invalid-request", "interactive-redirect-server-error", "interactive-state-mismatch",
            "interactive-session-already-running", "interactive-mismatched-user", "interactive-browser-launch-failure",
            "interactive-loopback-hand-off", "interactive-id-token-nonce-mismatch", "interactive-id-token-bad-signature",
        ] {
            #expect(names.contains(required), "missing scenario \(required)")
        }
    }

    @Test("Scenario", arguments: files)
    func scenario(file: URL) async throws {
        let fixture = try MSALRecordedFixture(contentsOf: file)
        let conformance = try #require(fixture.conformance, "\(fixture.name) has no conformance section")
        try #require(conformance["operation"]?.stringValue == "token_flow")
        let setup = try #require(conformance["setup"])
        let steps = try #require(conformance["steps"]?.arrayValue)

        let clock = ManualClock(try #require(setup["now"]?.numberValue))
        let transport = MSALReplayTransport(fixture: fixture)
        let app = try Self.application(setup, transport: transport, clock: clock)

        for (index, step) in steps.enumerated() {
            let label = "\(fixture.name) step \(index)"
            if let seconds = step["advance_clock"]?.numberValue { clock.advance(by: seconds) }
            let requestsBefore = transport.sentRequests.count
            let sleepsBefore = clock.sleeps.count
            let correlationID = UUID()
            let deviceCode = Recorder<MSALDeviceCodeInfo>()
            let webUI = try Self.webUI(step)

            let outcome: Result<MSALResult, MSALFailure>
            do {
                if let webUI {
                    outcome = .success(try await Self.interactive(step, app: app, webUI: webUI, correlationID: correlationID, label: label))
                } else {
                    outcome = .success(try await Self.call(step, app: app, correlationID: correlationID, deviceCode: deviceCode))
                }
            } catch let error as MSALFailure {
                outcome = .failure(error)
            }

            let sent = Array(transport.sentRequests.dropFirst(requestsBefore))
            #expect(transport.unmatchedRequests.isEmpty, "\(label): unexpected requests \(transport.unmatchedRequests.map(\.message))")
            if let expected = step["expect_requests"]?.intValue {
                #expect(sent.count == expected, "\(label): \(sent.map { "\($0.method) \($0.url.absoluteString)" })")
            }
            for request in sent {
                #expect(request.headers["client-request-id"] == correlationID.uuidString.lowercased(), "\(label): \(request.url)")
            }
            if let expected = step["expect_sleeps"]?.arrayValue {
                #expect(Array(clock.sleeps.dropFirst(sleepsBefore)) == expected.compactMap(\.numberValue), "\(label): clock waits")
            }
            if let expected = step["expect_device_code"] {
                Self.checkDeviceCode(deviceCode.values, expected, label: label)
            }
            if let webUI {
                let error: MSALFailure? = if case .failure(let error) = outcome { error } else { nil }
                try await Self.checkInteractive(step, webUI: webUI, sent: sent, error: error, label: label)
            }

            switch (outcome, step["expect"], step["expect_error"]) {
            case (.success(let result), .some(let expect), nil):
                #expect(result.correlationId == correlationID, "\(label)")
                Self.check(result, expect, label: label)
            case (.failure(let error), nil, .some(let expect)):
                #expect(error.correlationID == correlationID, "\(label): \(error)")
                #expect(!error.message.isEmpty)
                Self.check(error, expect, label: label)
            case (.success(let result), _, .some(let expect)):
                Issue.record("\(label): expected the error \(expect), got a result \(result)")
            case (.failure(let error), .some, _):
                Issue.record("\(label): \(error)")
            default:
                Issue.record("\(label): a step needs exactly one of expect and expect_error")
            }

            if let expected = step["expect_cache"] {
                try Self.checkCache(app, expected, label: label)
            }
            if let expected = step["expect_accounts"]?.arrayValue {
                let identifiers = try app.allAccounts().compactMap(\.identifier).sorted()
                #expect(identifiers == expected.compactMap(\.stringValue).sorted(), "\(label): accounts")
            }
        }
        try transport.verifyAllInteractionsUsed()
    }

    // MARK: Running

    static func application(
        _ setup: MSALFixtureJSON, transport: MSALReplayTransport, clock: ManualClock
    ) throws -> MSALPublicClientApplication {
        let clientID = try #require(setup["client_id"]?.stringValue)
        let authority = try MSALAuthority.authority(url: try #require(setup["authority"]?.stringValue.flatMap(URL.init(string:))))
        let config = MSALPublicClientApplicationConfig(
            clientId: clientID, redirectUri: setup["redirect_uri"]?.stringValue, authority: authority)
        config.cacheConfig = .memory
        config.transport = transport
        config.clock = clock
        config.clientApplicationCapabilities = setup["client_capabilities"]?.arrayValue?.compactMap(\.stringValue)
        config.extendedLifetimeEnabled = setup["extended_lifetime_enabled"]?.boolValue ?? false
        if let secrets = try Self.secrets(setup) { config.interactiveSecrets = secrets }
        let app = try MSALPublicClientApplication(configuration: config)
        if let cache = setup["cache"] {
            let document = try TokenCacheDocument(parsing: cache.serialized())
            try app.cache.write(clientID: clientID) { $0.replaceDocument(document) }
        }
        return app
    }

    static func call(
        _ step: MSALFixtureJSON, app: MSALPublicClientApplication, correlationID: UUID, deviceCode: Recorder<MSALDeviceCodeInfo>
    ) async throws -> MSALResult {
        let scopes = step["scopes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let parameters: MSALTokenParameters
        switch step["call"]?.stringValue {
        case "acquire_token_silent":
            let identifier = try #require(step["account"]?.stringValue)
            // An account the cache no longer lists (its refresh token is gone) is the one the app kept from an earlier result.
            let account =
                (try? app.account(forIdentifier: identifier))
                ?? MSALAccount(identifier: identifier, username: nil, environment: "login.windows.net", tenantProfiles: [])
            let silent = MSALSilentTokenParameters(scopes: scopes, account: account)
            silent.forceRefresh = step["force_refresh"]?.boolValue ?? false
            parameters = silent
        case "acquire_token_device_code":
            parameters = MSALTokenParameters(scopes: scopes)
        default:
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter, message: "unknown call \(step["call"].map { "\($0)" } ?? "nil")")
        }
        parameters.correlationId = correlationID
        if let authority = step["authority"]?.stringValue.flatMap(URL.init(string:)) {
            parameters.authority = try MSALAuthority.authority(url: authority)
        }
        if let claims = step["claims"]?.stringValue {
            parameters.claimsRequest = try MSALClaimsRequest(jsonString: claims)
        }
        if let silent = parameters as? MSALSilentTokenParameters {
            return try await app.acquireTokenSilent(with: silent)
        }
        return try await app.acquireTokenWithDeviceCode(with: parameters) { info in
            deviceCode.append(info)
        }
    }

    // MARK: Checks

    static func check(_ result: MSALResult, _ expect: MSALFixtureJSON, label: String) {
        for member in expect.members ?? [] {
            let value = member.value
            switch member.name {
            case "access_token": #expect(result.accessToken == value.stringValue, "\(label)")
            case "token_source": #expect(result.tokenSource.description == value.stringValue, "\(label)")
            case "scopes": #expect(result.scopes == value.arrayValue?.compactMap(\.stringValue), "\(label)")
            case "account": #expect(result.account.identifier == value.stringValue, "\(label)")
            case "tenant_id": #expect(result.tenantProfile.tenantId == value.stringValue, "\(label)")
            case "expires_on": #expect(result.expiresOn?.timeIntervalSince1970 == value.numberValue, "\(label)")
            case "extended_lifetime_token": #expect(result.extendedLifeTimeToken == value.boolValue, "\(label)")
            case "refresh_on": #expect(result.refreshOn?.timeIntervalSince1970 == value.numberValue, "\(label): refresh_on")
            case "id_token_claims":
                let claims = result.idTokenClaims ?? [:]
                for claim in value.members ?? [] {
                    #expect(claims[claim.name] as? String == claim.value.stringValue, "\(label): claim \(claim.name)")
                }
            default: Issue.record("\(label): unknown expect member \(member.name)")
            }
        }
        #expect(result.authorizationHeader == "Bearer \(result.accessToken)")
    }

    static func check(_ error: MSALFailure, _ expect: MSALFixtureJSON, label: String) {
        let context = "\(label): \(error)"
        for member in expect.members ?? [] {
            let value = member.value
            switch member.name {
            case "code": #expect(String(describing: error.code) == value.stringValue, "\(context)")
            case "internal_code": #expect(error.internalCode.map { String(describing: $0) } == value.stringValue, "\(context)")
            case "oauth_error": #expect(error.oauthError == value.stringValue, "\(context)")
            case "oauth_suberror": #expect(error.oauthSubError == value.stringValue, "\(context)")
            case "claims": #expect(error.claims == value.stringValue, "\(context)")
            case "http_status": #expect(error.httpStatusCode == value.intValue, "\(context)")
            case "throttling_cache_hit": #expect(error.isThrottlingCacheHit == value.boolValue, "\(context)")
            case "declined_scopes": #expect(error.declinedScopes == value.arrayValue?.compactMap(\.stringValue), "\(context)")
            case "granted_scopes": #expect(error.grantedScopes == value.arrayValue?.compactMap(\.stringValue), "\(context)")
            case "invalid_result_access_token": #expect(error.invalidResult?.accessToken == value.stringValue, "\(context)")
            case "message_contains":
                for text in value.arrayValue?.compactMap(\.stringValue) ?? [] {
                    #expect(error.message.contains(text), "\(context): message lacks \(text)")
                }
            case "authorization_url_presented": break  // checkInteractive compares it with the web UI's presentation
            default: Issue.record("\(label): unknown expect_error member \(member.name)")
            }
        }
        // The NSError bridge carries the same facts.
        let bridged = error as NSError
        #expect(bridged.domain == MSALErrorDomain)
        #expect(bridged.code == error.code.rawValue)
        #expect(bridged.userInfo[MSALOAuthSubErrorKey] as? String == error.oauthSubError)
    }

    static func checkDeviceCode(_ infos: [MSALDeviceCodeInfo], _ expect: MSALFixtureJSON, label: String) {
        guard !expect.isNull else {
            #expect(infos.isEmpty, "\(label): the device code callback must not be called")
            return
        }
        #expect(infos.count == 1, "\(label): the device code callback is called once")
        guard let info = infos.first else { return }
        #expect(info.userCode == expect["user_code"]?.stringValue, "\(label)")
        #expect(info.verificationURI.absoluteString == expect["verification_uri"]?.stringValue, "\(label)")
        #expect(info.message == expect["message"]?.stringValue, "\(label)")
        #expect(info.interval == expect["interval"]?.intValue, "\(label)")
        #expect(info.expiresOn.timeIntervalSince1970 == expect["expires_on"]?.numberValue, "\(label)")
    }

    /// Compares the whole cache (all clients) with the expected access tokens, refresh tokens and app metadata, as sets.
    static func checkCache(_ app: MSALPublicClientApplication, _ expect: MSALFixtureJSON, label: String) throws {
        let document = try app.cache.read(clientID: app.configuration.clientId) { $0.document }
        func rows(_ section: CacheSection, _ fields: [String]) -> [[String]] {
            document[section].values.map { entry in fields.map { entry[$0] ?? "<none>" } }.sorted { $0.lexicographicallyPrecedes($1) }
        }
        func expected(_ name: String, _ fields: [String]) -> [[String]]? {
            expect[name]?.arrayValue?.map { row in fields.map { row[$0]?.stringValue ?? "<none>" } }.sorted {
                $0.lexicographicallyPrecedes($1)
            }
        }
        for (name, section, fields) in [
            ("access_tokens", CacheSection.accessToken, ["secret", "realm", "target"]),
            ("refresh_tokens", CacheSection.refreshToken, ["secret", "family_id"]),
            ("app_metadata", CacheSection.appMetadata, ["client_id", "family_id"]),
        ] {
            if let wanted = expected(name, fields) {
                #expect(rows(section, fields) == wanted, "\(label): cache \(name)")
            }
        }
    }
}
