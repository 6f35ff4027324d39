import Foundation

/// The app's external account providers (``MSALCacheConfig/externalAccountProviders``) as a
/// public client application calls them, following MSAL for iOS's `MSALExternalAccountHandler`
/// and `MSALAccountsProvider`:
///
/// - providers are called in the order they were added; the first error is logged as a warning and
///   ends that round (the providers after it are not called), and never fails the app's call;
/// - a provider's accounts are rebuilt as ``MSALAccount``s from their identifier, username,
///   environment and claims, then merged with the cache's by identifier.
struct ExternalAccounts: Sendable {
    let providers: [any MSALExternalAccountProviding]
    let logger: MSALLogger

    var isEmpty: Bool { providers.isEmpty }

    /// Tells each provider that a token request got tokens for `result`'s account, with the claims
    /// of the ID token in the result's tenant.
    func update(with result: MSALResult) {
        let claims: [AnyHashable: Any] = (result.tenantProfile.claims ?? [:]).reduce(into: [:]) { $0[$1.key] = $1.value }
        for provider in providers {
            do {
                try provider.update(result.account, idTokenClaims: claims)
            } catch {
                logger.warning(
                    "An external account provider did not update \(oii: result.account.identifier): \(error: error)",
                    correlationID: result.correlationId)
                return
            }
        }
    }

    /// Tells each provider that `account` was removed or signed out.
    func remove(_ account: MSALAccount, wipeAccount: Bool, correlationID: UUID?) {
        for provider in providers {
            do {
                try provider.remove(account, wipeAccount: wipeAccount, tenantProfiles: account.tenantProfiles)
            } catch {
                logger.warning(
                    "An external account provider did not remove \(oii: account.identifier): \(error: error)", correlationID: correlationID)
                return
            }
        }
    }

    /// The providers' accounts for `parameters`; none at all when one of them fails (logged).
    func accounts(with parameters: MSALAccountEnumerationParameters) -> [MSALAccount] {
        var found: [MSALAccount] = []
        for provider in providers {
            do {
                found += try provider.accounts(with: parameters).map(Self.account(from:))
            } catch {
                logger.warning(
                    "An external account provider could not list its accounts (\(error: error)); listing the cache's alone",
                    correlationID: nil)
                return []
            }
        }
        return found
    }

    /// `cached` with `external` merged in: an external account with the identifier of an account
    /// already listed adds its tenant profiles and claims to it; any other is listed after the
    /// cache's when `admits` it (it matches what the app asked for).
    static func merge(_ cached: [MSALAccount], _ external: [MSALAccount], admits: (MSALAccount) -> Bool) -> [MSALAccount] {
        var merged = cached
        for account in external {
            var matched = false
            for index in merged.indices where isSameAccount(merged[index], account) {
                merged[index] = enrich(merged[index], with: account)
                matched = true
            }
            if !matched, admits(account) { merged.append(account) }
        }
        return merged
    }

    /// An ``MSALAccount`` with `external`'s identifier, username and environment, and the tenant
    /// profile its claims describe (its own tenant profiles are not kept, as in MSAL for iOS).
    static func account(from external: any MSALAccountProtocol) -> MSALAccount {
        let homeAccountId = external.identifier.map(MSALAccountId.init(identifier:))
        let claims = external.accountClaims
        var profiles: [MSALTenantProfile]?
        if let claims, let tenantId = claims["tid"] as? String, !tenantId.isEmpty {
            let objectId = (claims["oid"] as? String) ?? (claims["sub"] as? String) ?? ""
            // The home tenant is the home account id's tenant (any, when the id names none: a
            // generic provider's `sub`), or the one where the object id is the home account id's.
            let isHome =
                (homeAccountId?.tenantId.map { CacheText.equalIgnoringASCIICase($0, tenantId) } ?? true)
                || (homeAccountId?.objectId.map { CacheText.equalIgnoringASCIICase($0, objectId) } ?? false)
            profiles = [
                MSALTenantProfile(
                    identifier: objectId, environment: external.environment, tenantId: tenantId, isHomeTenantProfile: isHome, idToken: nil)
            ]
        }
        return MSALAccount(
            identifier: external.identifier, username: external.username, environment: external.environment,
            tenantProfiles: profiles, homeAccountId: homeAccountId, providedClaims: claims)
    }

    /// Whether two accounts are one: their identifiers when both have one, else their usernames
    /// (without regard to case).
    static func isSameAccount(_ lhs: MSALAccount, _ rhs: MSALAccount) -> Bool {
        if let left = lhs.identifier, let right = rhs.identifier { return CacheText.equalIgnoringASCIICase(left, right) }
        if let left = lhs.username, let right = rhs.username { return left.lowercased() == right.lowercased() }
        return false
    }

    /// `account` with the tenant profiles of `external` for tenants it lacks; when `external`
    /// has a home tenant profile, also its claims and username (its username only when it has one).
    static func enrich(_ account: MSALAccount, with external: MSALAccount) -> MSALAccount {
        var profiles = account.tenantProfiles ?? []
        for profile in external.tenantProfiles ?? []
        where !profiles.contains(where: { CacheText.equalIgnoringASCIICase($0.realm, profile.realm) }) {
            if profile.isHomeTenantProfile, !profiles.contains(where: \.isHomeTenantProfile) {
                profiles.insert(profile, at: 0)
            } else {
                profiles.append(profile)
            }
        }
        let homeProfiles = (external.tenantProfiles ?? []).filter(\.isHomeTenantProfile).count
        let takesClaims = homeProfiles == 1 && external.providedClaims != nil
        return MSALAccount(
            identifier: account.identifier, username: takesClaims ? (external.username ?? account.username) : account.username,
            environment: account.environment, tenantProfiles: profiles.isEmpty ? account.tenantProfiles : profiles,
            homeAccountId: account.homeAccountId, providedClaims: takesClaims ? external.providedClaims : account.providedClaims)
    }
}

extension TokenClient {
    /// `result`, after telling the external account providers about it when its tokens came from
    /// the identity provider (never for an answer from the cache) and this is a public client.
    ///
    /// The token flows (interactive, silent, device code) pass their result through this before
    /// returning it; the providers run off Swift's cooperative threads, and their errors are only
    /// logged.
    package func informingExternalAccounts(_ result: MSALResult) async -> MSALResult {
        let providers = cache.externalAccountProviders
        guard !providers.isEmpty, result.tokenSource == .identityProvider, clientAuthentication == nil else { return result }
        let external = ExternalAccounts(providers: providers, logger: logger)
        do {
            try await BlockingWork.shared.run { external.update(with: result) }
        } catch {
            logger.warning(
                "The external account providers were not told of the new tokens: \(error: error)", correlationID: result.correlationId)
        }
        return result
    }
}

extension MSALPublicClientApplication {
    /// The application's external account providers, as its configuration had them when it was
    /// created.
    var externalAccounts: ExternalAccounts {
        ExternalAccounts(providers: cache.externalAccountProviders, logger: client.logger)
    }
}
