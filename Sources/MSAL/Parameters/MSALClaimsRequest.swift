import Foundation
import MSALJSON
import MSALSupport

/// An OpenID Connect claims request (OpenID Connect Core 1.0, section 5.5): the claims an app asks
/// to find in the ID token and in the access token, such as the claims challenge a resource
/// returns for continuous access evaluation or conditional access.
///
/// Build one claim by claim, as in MSAL for iOS:
///
/// ```swift
/// let claimsRequest = MSALClaimsRequest()
/// let authTime = MSALIndividualClaimRequest(name: "auth_time")
/// let info = MSALIndividualClaimRequestAdditionalInfo()
/// info.essential = 1
/// authTime.additionalInfo = info
/// try claimsRequest.requestClaim(authTime, for: .idToken)
/// parameters.claimsRequest = claimsRequest
/// ```
///
/// or from the JSON text of a challenge, with ``init(jsonString:)``. A request with claims never
/// answers from the token cache, so set ``MSALTokenParameters/claimsRequest`` only when the claims
/// are needed.
///
/// Each target holds at most one request per claim name: requesting a claim whose name is already
/// there replaces it, in its place. ``jsonString()`` writes `id_token` first, then `access_token`,
/// each claim in the order it was first requested (or read); a target with no claims is left out.
///
/// Unlike MSAL for iOS's, this type is safe to share between threads and tasks: every method
/// takes the request's lock.
public final class MSALClaimsRequest: Sendable, CustomStringConvertible {
    /// The claims of each target, in the order they were first requested.
    private struct Claims: Sendable {
        private var byTarget: [MSALClaimsRequestTarget: [MSALIndividualClaimRequest.Snapshot]] = [:]

        subscript(target: MSALClaimsRequestTarget) -> [MSALIndividualClaimRequest.Snapshot] {
            get { byTarget[target, default: []] }
            set { byTarget[target] = newValue }
        }

        /// Adds `claim` to `target`, in the place of the claim of the same name if there is one.
        mutating func request(_ claim: MSALIndividualClaimRequest.Snapshot, for target: MSALClaimsRequestTarget) {
            if let index = self[target].firstIndex(where: { $0.name == claim.name }) {
                self[target][index] = claim
            } else {
                self[target].append(claim)
            }
        }

        /// Removes the claim named `name` from `target`; `false` when there is none.
        mutating func remove(named name: String, from target: MSALClaimsRequestTarget) -> Bool {
            guard let index = self[target].firstIndex(where: { $0.name == name }) else { return false }
            self[target].remove(at: index)
            return true
        }
    }

    private let claims: Mutex<Claims>

    /// Creates a claims request that asks for no claims yet; add them with ``requestClaim(_:for:)``.
    public init() {
        claims = Mutex(Claims())
    }

    /// Creates a claims request from its JSON text, such as a claims challenge from a resource
    /// (`MSALFailure.claims`, or the `claims` of a `WWW-Authenticate` header once decoded).
    ///
    /// The text must be a JSON object whose members are `id_token` and `access_token` only (MSAL
    /// for iOS rejects `userinfo` and any other member alike), each an object of claims. Each claim
    /// is `null` or an object with at least one of `essential` (a Boolean; a number is read as
    /// one), `value` (any JSON value) and `values` (an array). These are the rules of MSAL for iOS,
    /// and every claims challenge Microsoft Entra ID sends follows them.
    ///
    /// The request keeps the claims, not the text: ``jsonString()`` writes them again, compact and in
    /// this type's order, with the same meaning.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALError/internal`` and
    ///   ``MSALInternalError/internalErrorInvalidParameter`` when the text is not JSON or breaks these rules.
    public init(jsonString: String) throws {
        let trimmed = jsonString.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let document = try? JSONDocument(parsing: Array(trimmed.utf8), limits: .document),
            document.root.kind == .object
        else {
            throw MSALClaimsRequest.invalid("The claims request is not a JSON object")
        }
        var parsed = Claims()
        for (key, targetValue) in document.root.members {
            let targetName = key.string ?? ""
            guard let target = MSALClaimsRequestTarget(memberName: targetName) else {
                throw MSALClaimsRequest.invalid(
                    "The claims request has the member \"\(targetName)\": only id_token and access_token are supported")
            }
            guard targetValue.kind == .object else {
                throw MSALClaimsRequest.invalid("The claims request's \(targetName) is not a JSON object")
            }
            for (name, claimValue) in targetValue.members {
                let claimName = name.string ?? ""
                let additionalInfo = try MSALClaimsRequest.additionalInfo(claimValue, claim: claimName, target: targetName)
                parsed.request(MSALIndividualClaimRequest.Snapshot(name: claimName, additionalInfo: additionalInfo), for: target)
            }
        }
        claims = Mutex(parsed)
    }

    /// The additional information of the claim `claim` of `target` from its JSON value; `nil` for `null`.
    private static func additionalInfo(
        _ value: JSONValue, claim: String, target: String
    ) throws -> MSALIndividualClaimRequestAdditionalInfo.Contents? {
        switch value.kind {
        case .null:
            return nil
        case .object:
            var contents = MSALIndividualClaimRequestAdditionalInfo.Contents()
            if let essential = value["essential"] {
                switch essential.kind {
                case .true: contents.essential = true
                case .false: contents.essential = false
                case .number: contents.essential = (essential.double ?? 0) != 0
                default: throw invalid("The claim \"\(claim)\" of the claims request's \(target) has an essential that is not a Boolean")
                }
            }
            if let single = value["value"] {
                contents.value = JSON(single)
            }
            if let values = value["values"] {
                guard values.kind == .array else {
                    throw invalid("The claim \"\(claim)\" of the claims request's \(target) has values that are not an array")
                }
                contents.values = values.elements.map(JSON.init)
            }
            guard contents.essential != nil || contents.value != nil || contents.values != nil else {
                throw invalid("The claim \"\(claim)\" of the claims request's \(target) has none of essential, value and values")
            }
            return contents
        default:
            throw invalid("The claim \"\(claim)\" of the claims request's \(target) is neither null nor a JSON object")
        }
    }

    /// The error for a claims request that cannot be made or changed.
    private static func invalid(_ message: String) -> MSALFailure {
        MSALFailure(.internal, internalCode: .internalErrorInvalidParameter, message: message)
    }

    /// Asks for the claim `request` in the token `target`, replacing the request for a claim of the
    /// same name there (which keeps its place in the JSON).
    ///
    /// The claims request keeps a copy of `request` as it is now: changing `request` afterwards
    /// changes nothing here. Swift's name for MSAL for iOS's `requestClaim:forTarget:error:`; it
    /// throws for source compatibility with it, and never does for a valid target.
    public func requestClaim(_ request: MSALIndividualClaimRequest, for target: MSALClaimsRequestTarget) throws {
        let claim = request.snapshot
        claims.withLock { $0.request(claim, for: target) }
    }

    /// The same as ``requestClaim(_:for:)``, under the argument label MSAL for iOS's Objective-C
    /// selector has (`requestClaim:forTarget:error:`).
    public func requestClaim(_ request: MSALIndividualClaimRequest, forTarget target: MSALClaimsRequestTarget) throws {
        try requestClaim(request, for: target)
    }

    /// Stops asking for the claim named `name` in the token `target`.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALError/internal`` and
    ///   ``MSALInternalError/internalErrorInvalidParameter`` when `target` has no claim of that name
    ///   (MSAL for iOS returns `NO` then, which Swift imports as a thrown error).
    public func removeClaimRequest(withName name: String, target: MSALClaimsRequestTarget) throws {
        let removed = claims.withLock { $0.remove(named: name, from: target) }
        guard removed else {
            throw Self.invalid("The claims request has no claim named \"\(name)\" in its \(target.memberName)")
        }
    }

    /// The claims asked for in the token `target`, in the order they were first requested; empty
    /// when there are none. Optional, as MSAL for iOS declares it; never `nil` here.
    ///
    /// Each is a new object holding a copy of the claim: changing it changes nothing in this
    /// request (request it again to replace the claim).
    public func claimsRequests(for target: MSALClaimsRequestTarget) -> [MSALIndividualClaimRequest]? {
        claims.withLock { $0[target] }.map { MSALIndividualClaimRequest(snapshot: $0) }
    }

    /// The request as compact JSON text, the `claims` parameter sent to the identity platform
    /// (merged with the app's client capabilities when it declares any).
    ///
    /// `id_token` comes first, then `access_token`, each claim in the order it was first
    /// requested; a target with no claims is left out, so an empty request is `{}`. A claim
    /// without additional information (or with none of it set) is `null`; otherwise its object holds
    /// only the members that are set, `essential` as a Boolean. Optional, as MSAL for iOS declares
    /// it (so `if let json = request.jsonString()` ports unchanged); never `nil` here.
    public func jsonString() -> String? {
        let current = claims.withLock { $0 }
        var members: [JSONMember] = []
        for target in [MSALClaimsRequestTarget.idToken, .accessToken] where !current[target].isEmpty {
            let claimMembers = current[target].map { JSONMember(name: $0.name, value: $0.json) }
            members.append(JSONMember(name: target.memberName, value: .object(claimMembers)))
        }
        return JSONWriter.string(.object(members))
    }

    /// The request's JSON text, as ``jsonString()`` writes it.
    public var description: String { jsonString() ?? "{}" }
}
