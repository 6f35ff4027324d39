import Foundation

/// `acquireTokenByUserFederatedIdentityCredential`: the user's cached access token for the named
/// user, when one is usable, else the `user_fic` grant — the agent identity's federated identity
/// credential and the user's UPN or object id, with the client's own credential — whose answer
/// is cached under the user's account with the usual keys (no extended key), as MSAL for Python
/// caches it. The answer's ID token must name the requested user, or nothing is cached.
package struct UserFederatedCredentialFlow: Sendable {
    package let client: TokenClient
    /// The application's account lists, reused while the cache is unchanged: an agent serving
    /// many users does not rebuild every account for each call.
    package let accountMemo: TokenCacheAccountMemo

    package init(client: TokenClient, accountMemo: TokenCacheAccountMemo) {
        self.client = client
        self.accountMemo = accountMemo
    }

    /// The request, read and checked once.
    package struct Request: Sendable {
        var basics: TokenRequestBasics
        var assertion: String
        var user: TokenRedemption.ExpectedUser
        /// What the credential is told for this request (`x5c`, the assertion provider's context).
        var credentialContext: ClientAuthentication.RequestContext
    }

    /// Reads and checks the parameters: a compact JWT credential of at most 16 KiB, exactly one of
    /// username and object id (1 to 256 visible characters), resource scopes.
    package func request(_ parameters: MSALUserFederatedIdentityCredentialParameters) throws -> Request {
        let basics = try client.basics(
            parameters.snapshot, forceRefresh: parameters.forceRefresh,
            noScopes: "The request names no scopes: give the downstream API's delegated scopes, such as User.Read")
        do throws(MSALFailure) {
            let assertion = try ClientAuthentication.checked(
                parameters.assertion, what: "user federated identity credential", refusal: .internalErrorInvalidParameter)
            let user: TokenRedemption.ExpectedUser
            switch (parameters.username, parameters.userObjectId) {
            case (let username?, nil): user = .username(try Self.checkedName(username, "username"))
            case (nil, let objectID?): user = .objectID(try Self.checkedName(objectID, "user object id"))
            default:
                throw MSALFailure(
                    .internal, internalCode: .internalErrorInvalidParameter, message: "Name the user with a username or an object id")
            }
            return Request(
                basics: basics, assertion: assertion, user: user,
                credentialContext: ClientAuthentication.RequestContext(sendX5C: parameters.sendX5C))
        } catch {
            throw error.correlated(basics.correlationID)
        }
    }

    private static func checkedName(_ value: String, _ name: String) throws(MSALFailure) -> String {
        guard !value.isEmpty, value.utf8.count <= 256,
            !value.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control })
        else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "The \(name) is not 1 to 256 characters without white space or control characters")
        }
        return value
    }

    /// The cache's usable access token for the named user, or the `user_fic` grant's answer.
    package func run(_ request: Request) async throws -> MSALResult {
        if !request.basics.skipsCache, let cached = try await cachedResult(request) { return cached }
        return try await redeem(request)
    }

    /// The named user's usable access token for the scopes at the request's authority, with no
    /// refresh: a miss presents the credential again.
    private func cachedResult(_ request: Request) async throws -> MSALResult? {
        let clientID = client.clientID
        let environment = CacheText.lowercased(request.basics.authority.components.hostAndPort)
        let tenant = request.basics.authority.components.tenant
        let user = request.user
        let accounts = try await client.cache.accounts(
            clientID: clientID, environment: environment, signedInOnly: false, memo: accountMemo
        ).filter { account in
            switch user {
            case .username(let username): return account.username?.lowercased() == username.lowercased()
            case .objectID(let objectID):
                return (account.tenantProfiles ?? []).contains {
                    $0.identifier?.lowercased() == objectID.lowercased()
                        && (TokenClient.isMultiTenant(tenant) || $0.tenantId?.lowercased() == tenant.lowercased())
                }
            }
        }
        // Every account the name matches (a work account and a personal one may share a username).
        let silent = SilentFlow(client: client)
        for account in accounts {
            let parameters = MSALSilentTokenParameters(scopes: request.basics.scopes, account: account)
            parameters.authority = request.basics.authority
            parameters.correlationId = request.basics.correlationID
            if let cached = try await silent.cachedResult(try silent.request(parameters)) {
                client.logger.info("User federated identity credential request: cache hit", correlationID: request.basics.correlationID)
                return cached
            }
        }
        return nil
    }

    private func redeem(_ request: Request) async throws -> MSALResult {
        let correlationID = request.basics.correlationID
        let authority = request.basics.authority
        do {
            let metadata = try await client.resolver.resolve(authority, correlationID: correlationID)
            var parameters: [(String, String)] = [
                ("client_id", client.clientID), ("grant_type", "user_fic"),
                ("scope", TokenRequests.scopeParameter(request.basics.scopes, excluding: client.excludedScopes)),
                ("user_federated_identity_credential", request.assertion),
            ]
            let anchor: String
            switch request.user {
            case .username(let username):
                parameters.append(("username", username))
                anchor = "upn:" + username
            case .objectID(let objectID):
                parameters.append(("user_id", objectID))
                anchor = "Oid:\(objectID)@\(authority.components.tenant)"
            }
            var httpRequest = TokenRequests.userFederatedCredential(
                tokenEndpoint: try client.tokenEndpoint(metadata, authority: authority, correlationID: correlationID),
                parameters: parameters, claims: request.basics.claims,
                authentication: try await client.authenticationFields(
                    tokenEndpoint: metadata.tokenEndpoint, authority: authority, claims: request.basics.claims,
                    context: request.credentialContext),
                extraQueryParameters: request.basics.extraQueryParameters, microsoft: authority.kind.isMicrosoft)
            // The mailbox the user lives in, as MSAL.NET and MSAL for Python route user_fic requests.
            httpRequest.headers.replaceOrAdd(name: "X-AnchorMailbox", value: anchor)
            return try await client.redeem(
                httpRequest,
                TokenRedemption(
                    authority: authority, metadata: metadata, scopes: request.basics.scopes, nonce: nil, expectedAccount: nil,
                    grant: .userFederatedCredential, correlationID: correlationID, expectedUser: request.user))
        } catch let error as MSALFailure {
            throw error.correlated(correlationID)
        }
    }
}
