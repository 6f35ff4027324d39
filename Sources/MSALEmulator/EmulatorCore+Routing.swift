import Foundation
import MSALJSON

/// What the request log keeps about the request being answered, filled in as the endpoint learns it.
struct EmulatorRequestInfo: Sendable {
    var endpoint: MSALEmulator.Endpoint
    var tenant: String?
    var grantType: MSALEmulator.GrantType?
    var clientID: String?
    var username: String?
    var faulted = false
    /// The wire fault to play instead of sending the answer.
    var wireFault: MSALEmulator.Fault.Response?
    /// The trace id of the answer (`x-ms-request-id`, `trace_id`).
    var traceID: String
    /// The correlation id: the request's `client-request-id`, or a new one.
    var correlationID: String
    var received: Date
    /// A token request's form, redacted (``MSALEmulator/RequestRecord/form``).
    var form: [String: String] = [:]
}

extension EmulatorCore {
    /// Answers one request and logs it. Never throws: every failure is an HTTP answer.
    func handle(_ request: EmulatorHTTPRequest) async -> EmulatorHTTPResponse {
        let segments = request.segments
        let (endpoint, tenant) = Self.route(segments)
        var info = EmulatorRequestInfo(
            endpoint: endpoint, tenant: tenant.map { $0.lowercased() }, traceID: UUID().uuidString.lowercased(),
            correlationID: request.correlationID ?? UUID().uuidString.lowercased(), received: now())
        var response: EmulatorHTTPResponse
        if !request.path.hasPrefix("/") {
            response = .text("The request target must be a path.", status: 400)
        } else if let host = request.header("host"), !Self.isLoopbackHost(host) {
            // A page elsewhere reaching the emulator through a rebound DNS name gets nothing.
            response = .text("The Host header must name a loopback address.", status: 400)
        } else {
            response = await dispatch(request, tenant: tenant, info: &info)
        }
        if let wire = info.wireFault {
            response = EmulatorHTTPResponse(status: EmulatorWireFault.status(of: wire))
            response.wireFault = wire
        }
        response.headers.append(("x-ms-request-id", info.traceID))
        response.headers.append(("x-ms-ests-server", "msal-emulator"))
        if let echoed = request.correlationID, request.header("return-client-request-id")?.lowercased() == "true" {
            response.headers.append(("client-request-id", echoed))
        }
        let record = MSALEmulator.RequestRecord(
            method: request.method, path: String(request.path.prefix(512)), endpoint: info.endpoint, tenant: info.tenant,
            grantType: info.grantType, clientID: info.clientID, username: info.username, status: response.status,
            oauthError: response.oauthError, faulted: info.faulted, correlationID: request.correlationID, date: info.received,
            form: info.form)
        state.withLock { $0.append(record) }
        return response
    }

    /// Whether a `Host` header names `127.0.0.1`, `localhost` or `[::1]` (any port).
    static func isLoopbackHost(_ header: String) -> Bool {
        var host = Substring(header.lowercased())
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            host = host[...close]
        } else if let colon = host.firstIndex(of: ":") {
            host = host[..<colon]
        }
        return RedirectURIMatcher.loopbackHosts.contains(String(host))
    }

    /// The endpoint a path names and its tenant segment.
    static func route(_ segments: [Substring]) -> (MSALEmulator.Endpoint, Substring?) {
        switch segments.count {
        case 0:
            return (.home, nil)
        case 2 where segments[0] == "msi" && segments[1] == "token":
            return (.appService, nil)
        case 4 where segments == ["metadata", "identity", "oauth2", "token"]:
            return (.imds, nil)
        case 5 where segments == ["arc", "metadata", "identity", "oauth2", "token"]:
            return (.azureArc, nil)
        case 1 where segments[0] == "devicelogin":
            return (.deviceLogin, nil)
        case 2 where segments[0] == "resource" && segments[1] == "me":
            return (.resource, nil)
        case 3 where segments[1] == "discovery" && segments[2] == "instance":
            return (.instanceDiscovery, segments[0])
        case 3 where segments[1] == "discovery" && segments[2] == "keys":
            return (.keys, segments[0])
        case 4 where segments[1] == "discovery" && segments[2] == "v2.0" && segments[3] == "keys":
            return (.keys, segments[0])
        case 4 where segments[1] == "v2.0" && segments[2] == ".well-known" && segments[3] == "openid-configuration":
            return (.openIDConfiguration, segments[0])
        case 4 where segments[1] == "oauth2" && segments[2] == "v2.0":
            switch segments[3] {
            case "authorize": return (.authorize, segments[0])
            case "token": return (.token, segments[0])
            case "devicecode": return (.deviceCode, segments[0])
            case "logout": return (.logout, segments[0])
            default: return (.unknown, nil)
            }
        default:
            return (.unknown, nil)
        }
    }

    private func dispatch(_ request: EmulatorHTTPRequest, tenant: Substring?, info: inout EmulatorRequestInfo) async -> EmulatorHTTPResponse
    {
        let allowed: [String]
        switch info.endpoint {
        case .authorize, .logout, .deviceLogin: allowed = ["GET", "POST"]
        case .token, .deviceCode: allowed = ["POST"]
        default: allowed = ["GET"]
        }
        guard allowed.contains(request.method) else {
            if info.endpoint == .token || info.endpoint == .deviceCode {
                var error = EmulatorOAuthError(
                    status: 405, "invalid_request", 900561,
                    "The endpoint only accepts POST requests. Received a \(EmulatorText.sanitized(request.method, limit: 16)) request.")
                error.headers.append(("Allow", "POST"))
                return errorResponse(error, info: info)
            }
            return .text("Method not allowed.", status: 405, headers: [("Allow", allowed.joined(separator: ", "))])
        }
        switch info.endpoint {
        case .home:
            return homePage()
        case .deviceLogin:
            return await deviceLogin(request, info: &info)
        case .resource:
            return await resource(request, info: &info)
        case .imds, .appService, .azureArc:
            return await managedIdentityToken(request, info: &info)
        case .unknown:
            return .json(
                .object(["error": .string("not_found"), "error_description": .string("The emulator has no endpoint at this path.")]),
                status: 404)
        case .instanceDiscovery, .openIDConfiguration, .keys, .authorize, .token, .deviceCode, .logout:
            guard let tenant else { return .text("Not found.", status: 404) }
            let selector = tenantSelector(tenant)
            switch info.endpoint {
            case .instanceDiscovery: return await instanceDiscovery(request, info: &info)
            case .openIDConfiguration: return await openIDConfiguration(selector, segment: tenant, info: &info)
            case .keys: return await keys(selector, segment: tenant, info: &info)
            case .authorize: return await authorize(request, selector: selector, segment: tenant, info: &info)
            case .token: return await token(request, selector: selector, segment: tenant, info: &info)
            case .deviceCode: return await deviceCode(request, selector: selector, segment: tenant, info: &info)
            default: return await logout(request, selector: selector, info: &info)
            }
        }
    }

    /// The AAD-shaped JSON answer for `error`.
    func errorResponse(_ error: EmulatorOAuthError, info: EmulatorRequestInfo) -> EmulatorHTTPResponse {
        error.response(traceID: info.traceID, correlationID: info.correlationID, now: now())
    }

    /// Applies matching faults: waits for delay faults, returns the first other fault's answer.
    func faultAnswer(
        _ info: inout EmulatorRequestInfo, grantType: MSALEmulator.GrantType? = nil, clientID: String? = nil, username: String? = nil
    ) async -> EmulatorOAuthError? {
        let (delay, response) = state.withLock {
            $0.takeFaults(endpoint: info.endpoint, grantType: grantType, clientID: clientID, username: username)
        }
        if delay > 0 {
            info.faulted = true
            try? await Task.sleep(nanoseconds: UInt64(min(delay, 3600) * 1_000_000_000))
        }
        guard let response else { return nil }
        info.faulted = true
        if response.isWireFault { info.wireFault = response }
        return .fault(response, endpoint: info.endpoint)
    }
}
