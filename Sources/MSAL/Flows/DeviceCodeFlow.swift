import Foundation

/// The device code flow (RFC 8628): ask for a code, hand it to the app, poll until the user
/// finished on another device, the code expired, the user declined, or the task was canceled.
package struct DeviceCodeFlow: Sendable {
    package let client: TokenClient

    package func run(
        _ parameters: MSALTokenParameters, deviceCodeCallback: @escaping @Sendable (MSALDeviceCodeInfo) -> Void
    ) async throws -> MSALResult {
        let values = parameters.snapshot
        let correlationID = values.correlationId ?? client.correlationIDs.make()
        let authority = values.authority ?? client.defaultAuthority
        let scopes = TokenRequests.resourceScopes(values.scopes)
        let (scheme, presentation) = try client.tokenScheme(values.authenticationScheme, correlationID: correlationID)
        let metadata = try await client.resolver.resolve(authority, correlationID: correlationID)
        let microsoft = authority.kind.isMicrosoft
        guard
            let endpoint = metadata.deviceCodeEndpoint
                ?? (microsoft ? metadata.tokenEndpoint.deletingLastPathComponent().appendingPathComponent("devicecode") : nil)
        else {
            throw MSALFailure(
                .internal, internalCode: .invalidAuthorityMetadata,
                message:
                    "The provider's metadata names no device_authorization_endpoint: it does not offer the device code flow (RFC 8628)",
                correlationID: correlationID)
        }
        let start = TokenRequests.deviceCode(
            endpoint: endpoint, clientID: client.clientID, scope: TokenRequests.scopeParameter(scopes, excluding: client.excludedScopes),
            claims: client.claimsParameter(values.claimsRequest), extraQueryParameters: client.withSlice(values.extraQueryParameters),
            microsoft: microsoft)
        let response = try await client.pipeline.send(start, correlationID: correlationID)
        guard response.statusCode == 200 else {
            throw MSALFailure(tokenEndpointResponse: response, grant: .deviceCode, correlationID: correlationID)
        }
        let code: DeviceCodeResponse
        do throws(MSALFailure) {
            code = try DeviceCodeResponse(parsing: response.body)
        } catch {
            var error = error
            error.correlationID = correlationID
            throw error
        }
        client.logger.info(
            "Device code issued; polling every \(code.interval) s for up to \(code.expiresIn) s", correlationID: correlationID)
        let started = client.clock.now()
        let expiresOn = started.addingTimeInterval(Double(code.expiresIn))
        deviceCodeCallback(
            MSALDeviceCodeInfo(
                userCode: code.userCode, verificationURI: code.verificationURI, message: code.message,
                expiresOn: expiresOn, interval: Int(code.interval)))

        let redemption = TokenRedemption(
            authority: authority, metadata: metadata, scopes: scopes, nonce: nil, expectedAccount: nil,
            grant: .deviceCode, correlationID: correlationID, scheme: scheme, presentation: presentation)
        let poll = TokenRequests.deviceCodePoll(
            tokenEndpoint: metadata.tokenEndpoint, clientID: client.clientID, deviceCode: code.deviceCode,
            extraQueryParameters: client.withSlice(values.extraQueryParameters), microsoft: microsoft,
            schemeFields: client.tokenRequestFields(presentation))
        var interval = Double(code.interval)
        while true {
            // The last wait ends at the code's expiry, not an interval after it (as MSAL Go's context
            // deadline cuts it); then the code is expired, without another poll.
            let remaining = expiresOn.timeIntervalSince(client.clock.now())
            guard remaining > 0 else { throw Self.expired(correlationID) }
            do {
                try await client.clock.sleep(seconds: min(interval, remaining))
            } catch {
                throw Self.canceled(correlationID)
            }
            if Task.isCancelled { throw Self.canceled(correlationID) }
            guard client.clock.now() < expiresOn else { throw Self.expired(correlationID) }
            let answer: MSALHTTPResponse
            do {
                answer = try await client.sendTokenRequest(poll, presentation: presentation, correlationID: correlationID)
            } catch is CancellationError {
                throw Self.canceled(correlationID)
            }
            if answer.statusCode == 200 {
                return try client.present(await client.informingExternalAccounts(client.accept(answer.body, redemption)), presentation)
            }
            let error = OAuthErrorResponse(body: answer.body).error?.lowercased()
            switch error {
            case "authorization_pending":
                continue
            case "slow_down":
                interval = min(interval + 5, Double(DeviceCodeResponse.maximumInterval))
                client.logger.verbose("Device code: slow_down; polling every \(interval) s", correlationID: correlationID)
                continue
            case "expired_token", "code_expired":
                var failure = MSALFailure(tokenEndpointResponse: answer, grant: .deviceCode, correlationID: correlationID)
                failure.code = .internal
                failure.internalCode = .deviceCodeExpired
                failure.message = "The device code expired before the user signed in. " + failure.message
                throw failure
            default:
                throw MSALFailure(tokenEndpointResponse: answer, grant: .deviceCode, correlationID: correlationID)
            }
        }
    }

    private static func canceled(_ correlationID: UUID) -> MSALFailure {
        MSALFailure(
            .userCanceled, internalCode: .internalErrorSessionCanceled, message: "The device code sign-in was canceled",
            correlationID: correlationID)
    }

    private static func expired(_ correlationID: UUID) -> MSALFailure {
        MSALFailure(
            .internal, internalCode: .deviceCodeExpired, message: "The device code expired before the user signed in",
            correlationID: correlationID)
    }
}
