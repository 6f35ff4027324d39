import Foundation

/// What the silent, client-credentials and on-behalf-of requests read from their parameters the
/// same way: the scopes, authority, claims and extra parameters, the correlation id, whether the
/// cache is skipped, and the token scheme. Each flow's request holds one and adds its own fields.
package struct TokenRequestBasics: Sendable {
    /// The requested resource scopes, trimmed and de-duplicated (no reserved scopes).
    var scopes: [String]
    var authority: MSALAuthority
    /// The claims to send: the request's merged with the client capabilities.
    var claims: String?
    var extraQueryParameters: [String: String]?
    var correlationID: UUID
    /// A forced refresh or a claims challenge: the cache is not read first.
    var skipsCache: Bool
    var scheme = TokenScheme.bearer
    /// How results present a bound token (``scheme`` not bearer); `nil` for a bearer token.
    var presentation: TokenPresentation?
}

extension TokenClient {
    /// Reads `values`: the correlation id (a new one when the parameters name none), the resource
    /// scopes, and the authority (the configuration's when the parameters name none).
    ///
    /// - Parameters:
    ///   - noScopes: The message when the parameters name no resource scope; `nil` lets a request
    ///     with only reserved scopes through (a silent request checks its own scopes).
    ///   - allowsProofOfPossession: Whether the flow obtains bound tokens of every scheme; other
    ///     flows refuse a parameter that asks for one rather than answer with a bearer token.
    ///   - allowsDPoP: Whether the flow obtains DPoP-bound tokens (``MSALAuthenticationSchemeDPoP``).
    ///   - allowsMutualTLSPop: Whether the flow obtains Entra's mTLS proof-of-possession tokens
    ///     (``MSALAuthenticationSchemeMutualTLSPop``).
    package func basics(
        _ values: MSALTokenParameters.Values, forceRefresh: Bool, noScopes: String?, allowsProofOfPossession: Bool = false,
        allowsDPoP: Bool = false, allowsMutualTLSPop: Bool = false
    ) throws -> TokenRequestBasics {
        let correlationID = values.correlationId ?? correlationIDs.make()
        // Trimmed and de-duplicated without Foundation on the common path (TokenRequests).
        let scopes = TokenRequests.resourceScopes(values.scopes)
        if let noScopes, scopes.isEmpty {
            throw MSALFailure(.internal, internalCode: .internalErrorInvalidParameter, message: noScopes, correlationID: correlationID)
        }
        let (scheme, presentation) = try tokenScheme(values.authenticationScheme, correlationID: correlationID)
        switch presentation {
        case nil:
            break
        case .dpop where allowsDPoP || allowsProofOfPossession:
            break
        case .signedHTTPRequest where allowsProofOfPossession:
            break
        case .mutualTLS where allowsMutualTLSPop:
            break
        case .dpop, .signedHTTPRequest, .mutualTLS:
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "This request does not give tokens of this scheme: proof-of-possession tokens come from acquireTokenSilent, "
                    + "acquireToken and the device code flow, DPoP tokens from those, acquireTokenForClient and on-behalf-of, "
                    + "mTLS proof-of-possession tokens from acquireTokenForClient",
                correlationID: correlationID)
        }
        return TokenRequestBasics(
            scopes: scopes, authority: values.authority ?? defaultAuthority, claims: claimsParameter(values.claimsRequest),
            extraQueryParameters: values.extraQueryParameters, correlationID: correlationID,
            skipsCache: forceRefresh || values.claimsRequest != nil, scheme: scheme, presentation: presentation)
    }
}

/// A flow's request that holds ``TokenRequestBasics`` and reads its members as its own.
@dynamicMemberLookup
package protocol TokenRequestWithBasics: TokenAcquisitionRequest {
    var basics: TokenRequestBasics { get set }
}

extension TokenRequestWithBasics {
    package subscript<Value>(dynamicMember member: WritableKeyPath<TokenRequestBasics, Value>) -> Value {
        get { basics[keyPath: member] }
        set { basics[keyPath: member] = newValue }
    }

    package var correlationID: UUID { basics.correlationID }
    package var skipsCache: Bool { basics.skipsCache }
    package var scheme: TokenScheme { basics.scheme }
}
