import Foundation
import MSALJOSE

/// What a public-client application does through the Linux identity broker
/// (``MSALLinuxBrokerOptions``): its token requests, accounts and sign-out over ``BrokerClient``,
/// and the results made of the broker's answers. Nothing here writes to the token cache: the broker
/// keeps its own tokens.
package struct BrokerFlow: Sendable {
    package let client: BrokerClient
    package let options: MSALLinuxBrokerOptions
    /// The application's token client (its client id, capabilities, logger, default authority).
    let tokens: TokenClient

    package init(options: MSALLinuxBrokerOptions, tokens: TokenClient) {
        self.client = BrokerClient(busAddress: options.busAddress)
        self.options = options
        self.tokens = tokens
    }

    /// Whether requests to `authority` go to the broker: Microsoft Entra ID authorities only (the
    /// broker signs in to Entra ID; B2C, CIAM, ADFS and other providers use the browser, as in
    /// MSAL for Python).
    func serves(_ authority: MSALAuthority) -> Bool { authority.kind == .aad }

    /// Whether the caller's request goes to the broker: an Entra ID authority, a bearer or MSAL PoP
    /// scheme (DPoP and mTLS PoP are refused by ``request(_:account:loginHint:interactive:)``).
    func serves(_ values: MSALTokenParameters.Values) -> Bool {
        serves(values.authority ?? tokens.defaultAuthority)
    }

    /// An interactive request through the broker: the broker's own sign-in window, for the
    /// parameters' account or login hint.
    func acquireToken(_ parameters: MSALInteractiveTokenParameters) async throws -> MSALResult {
        let values = parameters.snapshot
        let interactive = parameters.interactiveSnapshot
        let (request, basics) = try self.request(
            values, account: values.account, loginHint: interactive.loginHint, interactive: true)
        tokens.logger.info("Signing in through the Linux identity broker", correlationID: basics.correlationID)
        let answer = try await client.token(
            request, interactive: true, correlationID: basics.correlationID, timeout: options.interactiveDuration)
        return try result(answer, request: request, basics: basics)
    }

    /// A silent request through the broker for the parameters' account.
    func acquireTokenSilent(_ parameters: MSALSilentTokenParameters) async throws -> MSALResult {
        let values = parameters.snapshot
        let (request, basics) = try self.request(values, account: values.account, loginHint: nil, interactive: false)
        tokens.logger.verbose("Asking the Linux identity broker for a token", correlationID: basics.correlationID)
        let answer = try await client.token(
            request, interactive: false, correlationID: basics.correlationID, timeout: options.silentDuration)
        return try result(answer, request: request, basics: basics)
    }

    /// The broker's request for `values`, and what was read from them.
    private func request(
        _ values: MSALTokenParameters.Values, account: MSALAccount?, loginHint: String?, interactive: Bool
    ) throws -> (BrokerAuthParameters, TokenRequestBasics) {
        // The scheme is read here, not by `basics`, which would make a proof key the broker never uses.
        var bearer = values
        bearer.authenticationScheme = nil
        let basics = try tokens.basics(bearer, forceRefresh: false, noScopes: nil)
        var request = BrokerAuthParameters(
            clientID: tokens.clientID, authority: basics.authority.url.absoluteString,
            scopes: basics.scopes.isEmpty ? TokenRequests.reservedScopes : basics.scopes)
        switch values.authenticationScheme {
        case nil, is MSALAuthenticationSchemeBearer:
            break
        case let pop as MSALAuthenticationSchemePop:
            // The host, port and path as MSAL's own signed HTTP requests name them (`u`, `p`).
            let components = URLComponents(url: pop.requestUrl, resolvingAgainstBaseURL: false)
            let scheme = components?.scheme?.lowercased()
            guard scheme == "https" || scheme == "http", let host = components.flatMap(DPoPProof.hostAndPort) else {
                throw MSALFailure(
                    .internal, internalCode: .internalErrorInvalidParameter,
                    message: "A proof-of-possession request needs the resource's URL (https, or http), with a host",
                    correlationID: basics.correlationID)
            }
            let path = components?.percentEncodedPath ?? ""
            request.proofOfPossession = .init(
                httpMethod: MSALParameterStringForHttpMethod(pop.httpMethod), host: host, path: path.isEmpty ? "/" : path,
                nonce: pop.nonce ?? UUID().uuidString)
        default:
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "The Linux identity broker gives bearer and MSAL proof-of-possession (Pop) tokens only: "
                    + "DPoP and mTLS proof-of-possession tokens come from an application without linuxBroker",
                correlationID: basics.correlationID)
        }
        if let account { request.account = try brokerAccount(account, correlationID: basics.correlationID) }
        request.loginHint = loginHint
        request.claims = basics.claims
        return (request, basics)
    }

    /// The broker's account object for `account` (its home account id, cloud and username).
    func brokerAccount(_ account: MSALAccount, correlationID: UUID?) throws(MSALFailure) -> BrokerAccount {
        guard let identifier = account.identifier, BrokerAccount.isHomeAccountID(identifier) else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "The identity broker knows accounts by their home account id (uid.utid); this account has none",
                correlationID: correlationID)
        }
        let home = MSALAccountId(identifier: identifier)
        let profile = account.tenantProfiles?.first { $0.isHomeTenantProfile }
        return BrokerAccount(
            homeAccountID: identifier, localAccountID: profile.flatMap { $0.objectID.isEmpty ? nil : $0.objectID } ?? home.objectId ?? "",
            environment: account.environment, realm: home.tenantId ?? profile?.realm ?? "", username: account.username ?? "")
    }

    /// The result of a broker's token answer: nothing cached; the account known to the broker.
    private func result(_ token: BrokerToken, request: BrokerAuthParameters, basics: TokenRequestBasics) throws -> MSALResult {
        let asked = request.proofOfPossession != nil
        guard token.isProofOfPossession == asked else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorBrokerCorruptedResponse,
                message: asked
                    ? "The identity broker answered a bearer token to a proof-of-possession request"
                    : "The identity broker answered a proof-of-possession token to a bearer request",
                correlationID: basics.correlationID)
        }
        let claims = try? JWT.decodeUnverified(token.idToken)
        let realm = claims?.stringClaim("tid") ?? token.account.realm
        let homeTenant = MSALAccountId(identifier: token.account.homeAccountID).tenantId ?? token.account.realm
        let profile = MSALTenantProfile(
            identifier: claims?.stringClaim("oid") ?? token.account.localAccountID, environment: token.account.environment,
            tenantId: realm, isHomeTenantProfile: CacheText.equalIgnoringASCIICase(realm, homeTenant), idToken: token.idToken)
        let account = MSALAccount(
            identifier: token.account.homeAccountID, username: token.account.username, environment: token.account.environment,
            tenantProfiles: [profile], homeAccountId: MSALAccountId(identifier: token.account.homeAccountID), providedClaims: nil,
            isKnownToBroker: true)
        let result = MSALResult(
            accessToken: token.accessToken, expiresOn: token.expiresOn, idToken: token.idToken,
            scopes: token.grantedScopes.isEmpty ? request.scopes : token.grantedScopes, tenantProfile: profile, account: account,
            authority: basics.authority, correlationId: basics.correlationID, tokenSource: .broker)
        let presented = asked ? result.presented(scheme: "Pop", headerScheme: "PoP", token: token.accessToken) : result
        try TokenClient.checkDeclinedScopes(presented, requested: basics.scopes, correlationID: basics.correlationID)
        return presented
    }

    /// The broker's accounts for this application, as ``MSALAccount``s known to the broker.
    package func accounts(correlationID: UUID) async throws(MSALFailure) -> [MSALAccount] {
        try await client.accounts(clientID: tokens.clientID, correlationID: correlationID, timeout: options.silentDuration)
            .map(Self.account)
    }

    /// ``accounts(correlationID:)``, waiting on the calling thread.
    func accountsBlocking(correlationID: UUID) throws(MSALFailure) -> [MSALAccount] {
        try client.accountsBlocking(clientID: tokens.clientID, correlationID: correlationID, timeout: options.silentDuration)
            .map(Self.account)
    }

    /// `account` as an ``MSALAccount``: its home tenant's profile, its names as its claims.
    static func account(_ account: BrokerAccount) -> MSALAccount {
        let home = MSALAccountId(identifier: account.homeAccountID)
        var claims: [String: any Sendable] = ["preferred_username": account.username, "tid": account.realm]
        if !account.localAccountID.isEmpty { claims["oid"] = account.localAccountID }
        if let name = account.name { claims["name"] = name }
        if let given = account.givenName { claims["given_name"] = given }
        if let family = account.familyName { claims["family_name"] = family }
        let profile = MSALTenantProfile(
            identifier: account.localAccountID, environment: account.environment, tenantId: account.realm,
            isHomeTenantProfile: home.tenantId.map { CacheText.equalIgnoringASCIICase($0, account.realm) } ?? true, idToken: nil)
        return MSALAccount(
            identifier: account.homeAccountID, username: account.username, environment: account.environment, tenantProfiles: [profile],
            homeAccountId: home, providedClaims: claims, isKnownToBroker: true)
    }

    /// `cached` with the broker's accounts: a cached account the broker also knows is marked so (its
    /// silent requests go to the broker); the broker's others follow the cache's.
    package static func merge(_ cached: [MSALAccount], _ brokered: [MSALAccount]) -> [MSALAccount] {
        var merged = cached
        for account in brokered {
            if let index = merged.firstIndex(where: { ExternalAccounts.isSameAccount($0, account) }) {
                merged[index] = merged[index].knownToBroker()
            } else {
                merged.append(account)
            }
        }
        return merged
    }

    /// Whether the broker knows `account`: marked so when listed, else found among the broker's
    /// accounts by its home account id (an account the app made, or one a browser sign-in gave).
    func knows(_ account: MSALAccount, listed: [MSALAccount]) -> Bool {
        account.isKnownToBroker || listed.contains { ExternalAccounts.isSameAccount($0, account) }
    }

    /// Signs `account` out of the broker for this application, waiting on the calling thread.
    func removeBlocking(_ account: MSALAccount, correlationID: UUID) throws(MSALFailure) {
        try client.removeAccountBlocking(
            brokerAccount(account, correlationID: correlationID), clientID: tokens.clientID, correlationID: correlationID,
            timeout: options.silentDuration)
    }

    /// The broker's version.
    func version(correlationID: UUID) async throws(MSALFailure) -> String {
        try await client.version(correlationID: correlationID, timeout: options.silentDuration)
    }
}
