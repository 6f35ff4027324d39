import Foundation
import MSALJOSE

/// What a token request was for, so its response can be checked, cached and reported.
package struct TokenRedemption: Sendable {
    /// The authority the request went to (a tenant-specific one for silent requests made through `common`).
    package var authority: MSALAuthority
    package var metadata: MSALAuthorityMetadata
    /// The requested resource scopes (no reserved scopes).
    package var scopes: [String]
    /// The nonce sent with the authorization request; `nil` for refresh and device code.
    package var nonce: String?
    /// The account the token must belong to: the silent request's account, or the interactive
    /// request's when the app named one.
    package var expectedAccount: MSALAccount?
    package var grant: TokenGrant
    package var correlationID: UUID
    /// The hash of the incoming assertion an on-behalf-of request was made with (also when its
    /// refresh token is redeemed): the access and refresh tokens are cached under it
    /// (``TokenCacheEntries/markOnBehalfOf(assertionHash:)``). `nil` for every other request.
    package var userAssertionHash: String? = nil
    /// The scheme the token was asked for: the response must name it (`token_type`), and the token is cached as it.
    package var scheme = TokenScheme.bearer
    /// How the token is presented; a DPoP key signs a proof for each token request.
    package var presentation: TokenPresentation? = nil
    /// The user the answer's ID token must name, when the request named one by username or object
    /// id rather than by account (a user federated identity credential): another user's tokens are
    /// refused before anything is cached.
    package var expectedUser: ExpectedUser? = nil

    /// A user named by the request.
    package enum ExpectedUser: Sendable, Equatable {
        /// `preferred_username` (else `upn`), compared ignoring case.
        case username(String)
        /// `oid`, compared ignoring case.
        case objectID(String)
    }
}

extension TokenClient {
    /// Sends a token request and turns the answer into a result: the error mapped to ``MSALFailure``,
    /// or the response parsed, its ID token verified (signature with the authority's keys, issuer,
    /// audience, lifetime, nonce), the account checked, the tokens cached, and the result built.
    ///
    /// Nothing is cached unless every check passed.
    package func redeem(_ request: MSALHTTPRequest, _ redemption: TokenRedemption) async throws -> MSALResult {
        logger.verbose("Token request to \(host: request.url)", correlationID: redemption.correlationID)
        let response = try await sendTokenRequest(request, presentation: redemption.presentation, correlationID: redemption.correlationID)
        guard response.statusCode == 200 else {
            throw MSALFailure(tokenEndpointResponse: response, grant: redemption.grant, correlationID: redemption.correlationID)
        }
        return try await accept(response.body, redemption)
    }

    /// Checks, caches and reports a successful token response body.
    package func accept(_ body: [UInt8], _ redemption: TokenRedemption) async throws -> MSALResult {
        let correlationID = redemption.correlationID
        let token: TokenResponse
        do throws(MSALFailure) {
            token = try TokenResponse(parsing: body, scheme: redemption.scheme)
        } catch {
            // Only a 200 answer's body is accepted: the failure names that status, as a refused answer names its own.
            var error = error
            error.correlationID = correlationID
            error.httpStatusCode = 200
            throw error
        }
        if let idToken = token.idToken {
            let verified = try await resolver.verifyIDToken(
                idToken, metadata: redemption.metadata, clientID: clientID, nonce: redemption.nonce, correlationID: correlationID)
            if let expected = redemption.expectedUser { try Self.check(verified, names: expected, correlationID: correlationID) }
        } else if redemption.expectedUser != nil {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidResponse,
                message: "The token response has no ID token, so it cannot be checked to be the requested user's; nothing was cached",
                correlationID: correlationID)
        } else if redemption.nonce != nil {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidResponse,
                message: "The token response to the sign-in has no ID token, so the sign-in cannot be verified",
                correlationID: correlationID)
        }
        let now = nowSeconds
        let isRefresh = redemption.grant == .refreshToken
        if token.idToken == nil, token.clientInfo == nil, !isRefresh {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidResponse,
                message: "The token response has neither an ID token nor client_info, so it names no account; nothing was cached "
                    + "(the provider must return an ID token for the openid scope)",
                correlationID: correlationID)
        }
        var writeContext = TokenCacheWriteContext(
            clientID: clientID, environment: redemption.metadata.cacheEnvironment,
            authorityTenant: redemption.authority.components.tenant, isADFS: redemption.authority.kind == .adfs,
            requestedScopes: redemption.scopes, now: now,
            redeemedAccountID: isRefresh ? redemption.expectedAccount?.identifier : nil, scheme: redemption.scheme)
        // RFC 9449 §5: a public client's refresh token is bound to the DPoP key its request proved.
        if publicClient != nil, let key = redemption.presentation?.dpopKey { writeContext.refreshTokenKeyID = key.thumbprint }
        let context = writeContext
        let entries: TokenCacheEntries
        let assertionHash = redemption.userAssertionHash
        do throws(MSALFailure) {
            var built = try TokenCacheEntries(response: token, context: context)
            if let assertionHash { built.markOnBehalfOf(assertionHash: assertionHash) }
            entries = built
        } catch {
            var error = error
            error.correlationID = correlationID
            throw error
        }
        if let expected = redemption.expectedAccount?.identifier,
            CacheText.lowercased(expected) != CacheText.lowercased(entries.homeAccountID)
        {
            var error = MSALFailure(
                .internal, internalCode: .internalErrorMismatchedUser,
                message: "The token response is for another account than the one requested; nothing was cached",
                correlationID: correlationID)
            error.homeAccountID = expected
            throw error
        }
        let account: MSALAccount?
        let clientID = clientID
        do {
            // A caller's assertion names the partition of tokens obtained on its behalf; else the user's account.
            let partition: TokenCachePartition =
                assertionHash.map { .onBehalfOf(assertionHash: $0, homeAccountID: entries.homeAccountID) }
                ?? .account(entries.homeAccountID)
            account = try await cache.write(clientID: clientID, partition: partition) { contents -> MSALAccount? in
                var entries = entries
                // Where the account already lives in this cloud (another MSAL may have written it
                // under another alias host), so every peer finds the newest tokens first.
                if let existing = contents.existingEnvironment(
                    homeAccountID: entries.homeAccountID, environment: context.environment, clientID: clientID, familyID: token.familyID),
                    existing != context.environment
                {
                    var moved = context
                    moved.environment = existing
                    entries = try TokenCacheEntries(response: token, context: moved)
                    if let assertionHash { entries.markOnBehalfOf(assertionHash: assertionHash) }
                }
                if isRefresh, let idToken = entries.idToken {
                    try Self.checkSameUser(idToken, in: contents, entries: entries, clientID: clientID, correlationID: correlationID)
                }
                contents.save(entries, clientID: clientID)
                let key = TokenCacheIndex.AccountKey(
                    home: CacheText.lowercased(entries.homeAccountID), environment: contents.aliases.group(of: context.environment))
                return contents.account(key, clientID: clientID)
            }
        } catch let error as MSALFailure {
            throw error.correlated(correlationID)
        }
        logger.info(
            "Token response accepted and cached for \(oii: entries.homeAccountID) in realm \(oii: entries.realm); scopes \(public: entries.target)",
            correlationID: correlationID)
        let result = makeResult(
            entries: entries, token: token, account: account, redemption: redemption, now: now)
        try Self.checkDeclinedScopes(result, requested: redemption.scopes, correlationID: correlationID)
        return result
    }

    /// Throws ``MSALInternalError/internalErrorMismatchedUser`` when `idToken` does not name the
    /// user the request named (its username, or object id).
    private static func check(_ idToken: IDToken, names expected: TokenRedemption.ExpectedUser, correlationID: UUID) throws(MSALFailure) {
        let matches: Bool
        switch expected {
        case .username(let username):
            let folded = username.lowercased()
            matches = [idToken.preferredUsername, idToken.userPrincipalName].contains { $0?.lowercased() == folded }
        case .objectID(let objectID):
            matches = idToken.objectID.map { $0.lowercased() == objectID.lowercased() } ?? false
        }
        guard matches else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorMismatchedUser,
                message: "The token response is for another user than the one the request named; nothing was cached",
                correlationID: correlationID)
        }
    }

    /// The claims that name the user, which a refreshed ID token must keep (OpenID Connect Core
    /// §12.2: `iss` and `sub`; Microsoft's platform adds the object and tenant ids).
    private static let identityClaims = ["iss", "sub", "oid", "tid"]

    /// Throws ``MSALInternalError/internalErrorMismatchedUser`` when the ID token of a refresh answer names
    /// another user than the ID token cached for the account in the same realm.
    ///
    /// `client_info` alone does not prove it: a provider (or a hostile one) may send the original
    /// `client_info` with another user's ID token, which would rename the cached account.
    private static func checkSameUser(
        _ idToken: KeyedCacheEntry, in contents: TokenCacheContents, entries: TokenCacheEntries, clientID: String, correlationID: UUID
    ) throws {
        guard let environment = idToken.entry["environment"],
            let previous = contents.idToken(
                homeAccountID: entries.homeAccountID, environment: environment, clientID: clientID, realm: entries.realm),
            let previousSecret = previous.entry["secret"], let newSecret = idToken.entry["secret"],
            let old = try? TokenCacheEntries.claims(of: previousSecret), let new = try? TokenCacheEntries.claims(of: newSecret)
        else { return }
        for name in identityClaims {
            let before = old[name]?.string
            // A claim the original token did not have cannot be compared; iss and sub always are.
            guard before != nil || name == "iss" || name == "sub" else { continue }
            guard before == new[name]?.string else {
                var error = MSALFailure(
                    .internal, internalCode: .internalErrorMismatchedUser,
                    message: "The refreshed ID token names another user than the account's (its \(name) claim differs); nothing was cached",
                    correlationID: correlationID)
                error.homeAccountID = entries.homeAccountID
                throw error
            }
        }
    }

    private func makeResult(
        entries: TokenCacheEntries, token: TokenResponse, account: MSALAccount?, redemption: TokenRedemption, now: Int64
    ) -> MSALResult {
        let environment = redemption.metadata.cacheEnvironment
        let account =
            account
            ?? MSALAccount(
                identifier: entries.homeAccountID, username: nil, environment: environment,
                tenantProfiles: [
                    MSALTenantProfile(
                        identifier: "", environment: environment, tenantId: entries.realm,
                        isHomeTenantProfile: MSALAccountId(identifier: entries.homeAccountID).tenantId.map(CacheText.lowercased)
                            == CacheText.lowercased(entries.realm),
                        idToken: token.idToken)
                ])
        let profile =
            account.tenantProfiles?.first { CacheText.lowercased($0.realm) == CacheText.lowercased(entries.realm) }
            ?? MSALTenantProfile(
                identifier: "", environment: environment, tenantId: entries.realm, isHomeTenantProfile: false, idToken: token.idToken)
        return MSALResult(
            accessToken: token.accessToken, expiresOn: Date(timeIntervalSince1970: Double(now + token.expiresIn)),
            idToken: token.idToken ?? profile.idToken, scopes: CacheText.scopes(entries.target).map(String.init),
            tenantProfile: profile, account: account, authority: redemption.authority,
            correlationId: redemption.correlationID, tokenSource: .identityProvider,
            refreshOn: token.refreshIn.map { Date(timeIntervalSince1970: Double(now + $0)) })
    }

    /// A scope without its resource URI: the text after the last `/`.
    private static func shortScope(_ scope: String) -> String {
        scope.split(separator: "/").last.map(String.init) ?? scope
    }

    /// Scopes never reported as declined: the OpenID Connect scopes every request adds, and
    /// `email`, which Entra grants through the ID token without listing it (as MSAL for iOS does).
    private static let neverDeclined: Set<String> = ["openid", "profile", "offline_access", "email"]

    /// Throws ``MSALError/serverDeclinedScopes`` when the service granted fewer scopes than
    /// requested; the tokens were cached under the granted scopes, and the result rides along.
    /// The error's granted scopes leave out the OpenID Connect scopes, as MSAL for iOS reports them.
    package static func checkDeclinedScopes(_ result: MSALResult, requested: [String], correlationID: UUID) throws {
        let granted = Set(result.scopes.map { $0.lowercased() })
        let grantedShort = Set(granted.map(Self.shortScope))
        // `.default` asks for whatever the app was granted; the response lists those scopes instead.
        // A resource's URI prefix may be dropped or added by the service (`User.Read` for
        // `https://graph.microsoft.com/User.Read`), so scopes also match by their last segment.
        let declined = requested.filter { scope in
            let folded = scope.lowercased()
            if granted.contains(folded) || folded.hasSuffix("/.default") || folded == ".default" || neverDeclined.contains(folded) {
                return false
            }
            return !grantedShort.contains(Self.shortScope(folded))
        }
        guard !declined.isEmpty else { return }
        let grantedScopes = result.scopes.filter { !TokenRequests.reservedScopes.contains($0.lowercased()) }
        var error = MSALFailure(
            .serverDeclinedScopes, internalCode: nil,
            message: "The service declined the scopes \(declined.joined(separator: " ")); the token was granted for "
                + (!grantedScopes.isEmpty
                    ? grantedScopes.joined(separator: " ")
                    : result.scopes.isEmpty ? "no scope" : "no resource scope (only \(result.scopes.joined(separator: " ")))"),
            correlationID: correlationID)
        error.declinedScopes = declined
        error.grantedScopes = grantedScopes
        error.invalidResult = result
        error.homeAccountID = result.account.identifier
        throw error
    }
}
