import Foundation
import MSAL
import MSALEmulator
import Testing

/// Broken answers on the wire — closed or reset connections, stalls, trickles, truncated and
/// oversized bodies — at every endpoint a flow reaches, through the public API, the default
/// `MSALCurlTransport` and a real loopback connection to the emulator. Each case checks the
/// typed error (code, internal code, correlation id), the pipeline's retry rule (idempotent
/// requests once, a code redemption never, an oversized body never), and that the cache file is
/// byte for byte what it was.
@Suite("Fault injection: the transport")
struct TransportFaultTests {
    /// Signs Adele in through one application object on a new file cache and returns the cache, the
    /// account and the cache file's bytes; `body` then runs the faulted request in a new application
    /// object (so discovery, metadata and the keys are fetched again).
    private static func withSignedInCache(
        _ body: (EmulatorHarness, FaultCacheDirectory, MSALAccount, [UInt8]) async throws -> Void
    ) async throws {
        let directory = try FaultCacheDirectory()
        defer { directory.remove() }
        try await EmulatorHarness.with { harness in
            let app = try harness.fileApplication(cachePath: directory.cacheFile)
            let signedIn = try await harness.signIn(app, as: EmulatorHarness.adele)
            let before = try #require(directory.bytes())
            harness.emulator.clearRequestLog()
            try await body(harness, directory, signedIn.account, before)
        }
    }

    private static func forcedRefresh(_ account: MSALAccount) -> MSALSilentTokenParameters {
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
        parameters.forceRefresh = true
        parameters.correlationId = UUID()
        return parameters
    }

    /// The checks every failed case shares.
    private static func expect(
        _ error: MSALFailure?, _ wire: WireFaultCase, correlationID: UUID?, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let error else { return }
        #expect(error.code == .internal, "\(error)", sourceLocation: sourceLocation)
        #expect(error.internalCode == wire.internalCode, "\(error)", sourceLocation: sourceLocation)
        #expect(error.correlationID == correlationID, "\(error)", sourceLocation: sourceLocation)
        #expect(error.message.contains(wire.messageFragment), "\(error.message)", sourceLocation: sourceLocation)
        #expect(error.message.contains("127.0.0.1"), "the host is named: \(error.message)", sourceLocation: sourceLocation)
        #expect(!error.isThrottlingCacheHit, sourceLocation: sourceLocation)
    }

    /// How many requests reach the emulator: two for a retried request, one otherwise. A `GET` on a
    /// reused keep-alive connection that closes before any answer may also be resent once by libcurl
    /// itself (metadata and keys follow discovery on the same connection); a POST never is.
    private static func expectedCount(_ endpoint: FaultedEndpoint, _ wire: WireFaultCase) -> ClosedRange<Int> {
        let count = wire.isRetried ? 2 : 1
        let isGET = [.instanceDiscovery, .openIDConfiguration, .keys].contains(endpoint.endpoint)
        return isGET && wire.fault == .closeBeforeHeaders ? count...(count + 1) : count...count
    }

    @Test(
        "Silent refresh in a new application: a wire fault at discovery, metadata, the token endpoint or the JWKS is a typed error, retried once when idempotent, and leaves the cache file untouched",
        arguments: FaultedEndpoint.silentRefresh, WireFaultCase.all)
    func silentRefresh(_ endpoint: FaultedEndpoint, _ wire: WireFaultCase) async throws {
        try await Self.withSignedInCache { harness, directory, account, before in
            // The short limits apply to the faulted request and its retry only: the request after
            // the fault is removed keeps the usual ones (1 s expired on a healthy one in CI).
            let app = try harness.fileApplication(
                cachePath: directory.cacheFile, faulted: endpoint, short: wire.limits, shortTimes: wire.isRetried ? 2 : 1)
            harness.inject(wire.fault, at: endpoint)
            let parameters = Self.forcedRefresh(account)
            let error = await expectMSALError { try await app.acquireTokenSilent(with: parameters) }
            Self.expect(error, wire, correlationID: parameters.correlationId)
            let expected = Self.expectedCount(endpoint, wire)
            let count = await harness.settledCount(endpoint, atLeast: expected.lowerBound)
            #expect(expected.contains(count), "requests to \(endpoint.name): \(count)")
            let faulted = harness.emulator.requests.filter(\.faulted)
            #expect(faulted.count == harness.count(endpoint))
            // The request log shows what went on the wire: no status line, or a 200 head.
            let sentHead = ![.closeBeforeHeaders, .stallBeforeHeaders].contains(wire.fault)
            #expect(faulted.allSatisfy { $0.status == (sentHead ? 200 : 0) && $0.oauthError == nil })
            #expect(harness.emulator.requests.allSatisfy { $0.correlationID == parameters.correlationId?.uuidString.lowercased() })
            #expect(directory.bytes() == before, "the cache file is unchanged")
            #expect(directory.names() == ["token_cache.json", "token_cache.json.lock"])
            // The refresh never reached the token endpoint, or was refused there before the grant
            // was used: with the fault gone the same account refreshes.
            harness.emulator.removeAllFaults()
            if endpoint.endpoint != .keys {
                let result = try await app.acquireTokenSilent(with: Self.forcedRefresh(account))
                #expect(result.tokenSource == .identityProvider)
                #expect(directory.bytes() != before)
            } else {
                // The keys are fetched to verify the ID token of a refresh the emulator had already
                // granted, rotating the refresh token: the cached one is spent, the next refresh is
                // refused (invalid_grant), the dead token is dropped and the user must sign in.
                let next = Self.forcedRefresh(account)
                let refused = await expectMSALError { try await app.acquireTokenSilent(with: next) }
                #expect(refused?.code == .interactionRequired)
                #expect(refused?.oauthError == "invalid_grant")
                #expect(refused?.correlationID == next.correlationId)
                #expect(try app.allAccounts().isEmpty)
            }
        }
    }

    @Test(
        "One broken answer at each endpoint of a silent refresh: the single retry succeeds and the new tokens are cached",
        arguments: FaultedEndpoint.silentRefresh, [WireFaultCase.resetMidBody, .stallBeforeHeaders])
    func silentRetryRecovers(_ endpoint: FaultedEndpoint, _ wire: WireFaultCase) async throws {
        try await Self.withSignedInCache { harness, directory, account, before in
            let app = try harness.fileApplication(
                cachePath: directory.cacheFile, faulted: endpoint, short: wire.limits, shortTimes: 1)
            harness.inject(wire.fault, at: endpoint, times: 1)
            let parameters = Self.forcedRefresh(account)
            let result = try await app.acquireTokenSilent(with: parameters)
            #expect(result.tokenSource == .identityProvider)
            #expect(result.correlationId == parameters.correlationId)
            #expect(await harness.settledCount(endpoint, atLeast: 2) == 2)
            #expect(harness.emulator.requests.filter(\.faulted).count == 1)
            let after = try #require(directory.bytes())
            #expect(after != before)
            #expect(String(decoding: after, as: UTF8.self).contains(result.accessToken), "the new access token is in the file")
            #expect(harness.emulator.faults.isEmpty)
        }
    }

    @Test(
        "Interactive sign-in: a wire fault on the code redemption is never retried (a code is single-use) and caches nothing",
        arguments: WireFaultCase.all)
    func codeRedemption(_ wire: WireFaultCase) async throws {
        try await Self.withSignedInCache { harness, directory, _, before in
            let app = try harness.fileApplication(cachePath: directory.cacheFile, faulted: .codeRedemption, short: wire.limits)
            harness.inject(wire.fault, at: .codeRedemption)
            let (parameters, webUI) = EmulatorHarness.interactive(as: EmulatorHarness.ben)
            parameters.correlationId = UUID()
            let error = await expectMSALError { try await app.acquireToken(with: parameters) }
            Self.expect(error, wire, correlationID: parameters.correlationId)
            #expect(webUI.authorizationURLs.count == 1)
            #expect(await harness.settledCount(.codeRedemption, atLeast: 1) == 1, "never retried")
            #expect(directory.bytes() == before, "the cache file is unchanged")
            #expect(try app.allAccounts().map(\.username) == [EmulatorHarness.adele])
        }
    }

    @Test(
        "Interactive sign-in: one broken redemption is not retried even though the next would work",
        arguments: [WireFaultCase.closeBeforeHeaders, .resetMidBody])
    func codeRedemptionOnce(_ wire: WireFaultCase) async throws {
        try await Self.withSignedInCache { harness, directory, _, before in
            let app = try harness.fileApplication(cachePath: directory.cacheFile, faulted: .codeRedemption, short: wire.limits)
            harness.inject(wire.fault, at: .codeRedemption, times: 1)
            let (parameters, _) = EmulatorHarness.interactive(as: EmulatorHarness.ben)
            parameters.correlationId = UUID()
            let error = await expectMSALError { try await app.acquireToken(with: parameters) }
            Self.expect(error, wire, correlationID: parameters.correlationId)
            #expect(await harness.settledCount(.codeRedemption, atLeast: 1) == 1)
            #expect(directory.bytes() == before)
            // A new sign-in (a new code) works.
            let (again, _) = EmulatorHarness.interactive(as: EmulatorHarness.ben)
            #expect(try await app.acquireToken(with: again).account.username == EmulatorHarness.ben)
        }
    }

    @Test(
        "Device code flow: a wire fault on the device authorization or on a poll is a typed error after one retry; the cache file is untouched",
        arguments: [FaultedEndpoint.deviceCodeStart, .deviceCodePoll], WireFaultCase.all)
    func deviceCode(_ endpoint: FaultedEndpoint, _ wire: WireFaultCase) async throws {
        try await Self.withSignedInCache { harness, directory, _, before in
            let app = try harness.fileApplication(cachePath: directory.cacheFile, faulted: endpoint, short: wire.limits)
            harness.inject(wire.fault, at: endpoint)
            let parameters = MSALTokenParameters(scopes: ["User.Read"])
            parameters.correlationId = UUID()
            let emulator = harness.emulator
            let error = await expectMSALError {
                try await app.acquireTokenWithDeviceCode(with: parameters) { info in
                    _ = try? emulator.approveDeviceCode(userCode: info.userCode, as: EmulatorHarness.ben)
                }
            }
            Self.expect(error, wire, correlationID: parameters.correlationId)
            let expected = wire.isRetried ? 2 : 1
            #expect(await harness.settledCount(endpoint, atLeast: expected) == expected)
            if endpoint.endpoint == .deviceCode {
                #expect(harness.count(.deviceCodePoll) == 0)
            }
            #expect(directory.bytes() == before, "the cache file is unchanged")
        }
    }

    @Test("Device code flow: one broken poll is retried and the sign-in completes")
    func deviceCodePollRecovers() async throws {
        try await Self.withSignedInCache { harness, directory, _, before in
            let app = try harness.fileApplication(cachePath: directory.cacheFile)
            harness.inject(.resetMidBody, at: .deviceCodePoll, times: 1)
            let emulator = harness.emulator
            let result = try await app.acquireTokenWithDeviceCode(with: MSALTokenParameters(scopes: ["User.Read"])) { info in
                _ = try? emulator.approveDeviceCode(userCode: info.userCode, as: EmulatorHarness.ben)
            }
            #expect(result.account.username == EmulatorHarness.ben)
            #expect(harness.count(.deviceCodePoll) == 2)
            #expect(directory.bytes() != before)
            #expect(Set(try app.allAccounts().compactMap(\.username)) == [EmulatorHarness.adele, EmulatorHarness.ben])
        }
    }

    @Test(
        "An authority whose host never completes the TCP handshake: networkTimeout after one retry, before any web UI; the cache file is untouched"
    )
    func blackholedAuthority() async throws {
        try await Self.withSignedInCache { harness, directory, _, before in
            let blackhole = try BlackholeListener()
            let authority = URL(string: "http://127.0.0.1:\(blackhole.port)/common")!
            let app = try harness.fileApplication(
                cachePath: directory.cacheFile, authorityURL: authority, faulted: .discovery, short: FaultDeadlineTransport.idleLimits)
            let (parameters, webUI) = EmulatorHarness.interactive(as: EmulatorHarness.ben)
            parameters.correlationId = UUID()
            let error = await expectMSALError { try await app.acquireToken(with: parameters) }
            Self.expect(error, .stallBeforeHeaders, correlationID: parameters.correlationId)
            #expect(webUI.authorizationURLs.isEmpty)
            #expect(harness.clock.sleeps == [0.5], "one retry, after the retry interval")
            #expect(directory.bytes() == before)
            withExtendedLifetime(blackhole) {}
        }
    }
}
