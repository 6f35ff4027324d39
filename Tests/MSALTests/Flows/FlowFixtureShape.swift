import Foundation
import MSAL
import MSALTesting
import Testing

/// The shape of a `token_flow` conformance section (Fixtures/Conformance/README.md, "Flows/"), checked
/// member by member so a misspelt expectation cannot silently check nothing.
enum FlowFixtureShape {
    static let sectionMembers: Set<String> = ["operation", "setup", "steps"]
    static let setupMembers: Set<String> = [
        "client_id", "authority", "now", "cache", "client_capabilities", "extended_lifetime_enabled", "redirect_uri", "interactive_secrets",
    ]
    static let stepMembers: Set<String> = [
        "call", "account", "scopes", "authority", "force_refresh", "claims", "advance_clock", "expect", "expect_error",
        "expect_requests", "expect_sleeps", "expect_device_code", "expect_cache", "expect_accounts",
        // acquire_token_interactive
        "web_ui", "prompt", "login_hint", "domain_hint", "extra_scopes_to_consent", "extra_query_parameters", "expect_authorize",
        "expect_deliveries", "concurrent_call", "resume_with",
    ]
    static let calls: Set<String> = ["acquire_token_silent", "acquire_token_device_code", "acquire_token_interactive"]
    static let expectMembers: Set<String> = [
        "access_token", "token_source", "scopes", "account", "tenant_id", "expires_on", "extended_lifetime_token", "refresh_on",
        "id_token_claims",
    ]
    static let expectErrorMembers: Set<String> = [
        "code", "internal_code", "oauth_error", "oauth_suberror", "claims", "http_status", "throttling_cache_hit",
        "declined_scopes", "granted_scopes", "invalid_result_access_token", "message_contains", "authorization_url_presented",
    ]
    static let webUIActions: [String: Set<String>] = [
        "redirect": ["action", "parameters", "fragment"], "redirect_with_state": ["action", "state", "parameters"],
        "error": ["action", "error", "description", "suberror"], "cancel": ["action"], "launch_failure": ["action"],
        "wait": ["action"], "hand_off": ["action", "deliveries"],
    ]
    static let deliveryMembers: Set<String> = ["parameters", "state", "path"]
    static let expectDeliveryMembers: Set<String> = ["status", "body_contains"]
    static let authorizeMembers: Set<String> = ["endpoint", "query"]
    static let deviceCodeMembers: Set<String> = ["user_code", "verification_uri", "message", "interval", "expires_on"]
    static let cacheMembers: Set<String> = ["access_tokens", "refresh_tokens", "app_metadata"]
    static let errorCodes = Set(MSALError.allCases.map { String(describing: $0) })
    static let internalCodes = Set(MSALInternalError.allCases.map { String(describing: $0) })

    static func check(_ conformance: MSALFixtureJSON, label: String) {
        unknown(conformance, sectionMembers, "\(label): conformance")
        guard let setup = conformance["setup"] else {
            Issue.record("\(label): no setup")
            return
        }
        unknown(setup, setupMembers, "\(label): setup")
        #expect(setup["client_id"]?.stringValue?.isEmpty == false, "\(label): setup.client_id")
        #expect(setup["authority"]?.stringValue.flatMap(URL.init(string:))?.host != nil, "\(label): setup.authority")
        #expect(setup["now"]?.numberValue != nil, "\(label): setup.now")
        if let cache = setup["cache"] { #expect(cache.members != nil, "\(label): setup.cache must be an object") }
        guard let steps = conformance["steps"]?.arrayValue, !steps.isEmpty else {
            Issue.record("\(label): steps must be a non-empty array")
            return
        }
        for (index, step) in steps.enumerated() {
            let where_ = "\(label): steps[\(index)]"
            unknown(step, stepMembers, where_)
            #expect(step["call"]?.stringValue.map(calls.contains) == true, "\(where_).call")
            #expect(step["scopes"]?.arrayValue?.allSatisfy { $0.stringValue != nil } == true, "\(where_).scopes")
            #expect(step["expect_requests"]?.intValue != nil, "\(where_): every step says how many requests it sends")
            if step["call"]?.stringValue == "acquire_token_silent" {
                #expect(step["account"]?.stringValue != nil, "\(where_).account")
            }
            switch (step["expect"], step["expect_error"]) {
            case (.some(let expect), nil):
                unknown(expect, expectMembers, "\(where_).expect")
            case (nil, .some(let expect)):
                unknown(expect, expectErrorMembers, "\(where_).expect_error")
                #expect(expect["code"]?.stringValue.map(errorCodes.contains) == true, "\(where_).expect_error.code")
                if let internalCode = expect["internal_code"], !internalCode.isNull {
                    #expect(internalCode.stringValue.map(internalCodes.contains) == true, "\(where_).expect_error.internal_code")
                }
            default:
                Issue.record("\(where_): needs exactly one of expect and expect_error")
            }
            if let deviceCode = step["expect_device_code"], !deviceCode.isNull {
                unknown(deviceCode, deviceCodeMembers, "\(where_).expect_device_code")
            }
            if let cache = step["expect_cache"] { unknown(cache, cacheMembers, "\(where_).expect_cache") }
            if step["call"]?.stringValue == "acquire_token_interactive" { checkInteractive(step, where_) }
        }
    }

    /// An interactive step: a non-empty script of known actions, the authorize URL expected, and a
    /// concurrent call only together with the action that answers the waiting first one.
    private static func checkInteractive(_ step: MSALFixtureJSON, _ where_: String) {
        guard let script = step["web_ui"]?.arrayValue, !script.isEmpty else {
            Issue.record("\(where_).web_ui must be a non-empty array")
            return
        }
        for (index, action) in (script + [step["resume_with"]].compactMap { $0 }).enumerated() {
            guard let name = action["action"]?.stringValue, let allowed = webUIActions[name] else {
                Issue.record("\(where_).web_ui[\(index)]: unknown action \(action)")
                continue
            }
            unknown(action, allowed, "\(where_).web_ui[\(index)]")
            for delivery in action["deliveries"]?.arrayValue ?? [] {
                unknown(delivery, deliveryMembers, "\(where_).web_ui[\(index)].deliveries")
            }
        }
        if let authorize = step["expect_authorize"] {
            unknown(authorize, authorizeMembers, "\(where_).expect_authorize")
            #expect(authorize["query"]?.members?.isEmpty == false, "\(where_).expect_authorize.query")
        } else {
            Issue.record("\(where_): an interactive step names the authorize URL it expects")
        }
        #expect((step["concurrent_call"] == nil) == (step["resume_with"] == nil), "\(where_): concurrent_call needs resume_with")
        if let concurrent = step["concurrent_call"] {
            #expect(script.first?["action"]?.stringValue == "wait", "\(where_): a concurrent call needs the first call waiting")
            if let expect = concurrent["expect_error"] { unknown(expect, expectErrorMembers, "\(where_).concurrent_call.expect_error") }
        }
        for delivery in step["expect_deliveries"]?.arrayValue ?? [] {
            unknown(delivery, expectDeliveryMembers, "\(where_).expect_deliveries")
        }
    }

    private static func unknown(_ object: MSALFixtureJSON, _ allowed: Set<String>, _ label: String) {
        guard let members = object.members else {
            Issue.record("\(label) must be an object")
            return
        }
        for member in members where !allowed.contains(member.name) {
            Issue.record("\(label): unknown member \(member.name)")
        }
    }
}
