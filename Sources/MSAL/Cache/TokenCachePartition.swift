/// The part of a confidential client's token cache that one operation reads or writes, named as
/// MSAL for .NET names it, so that a store keyed by ``MSALTokenCacheAccess/suggestedCacheKey``
/// (a database row, a distributed cache entry) loads and stores one partition per operation:
///
/// - a signed-in user's tokens (a web app's silent call, its authorization-code redemption,
///   removing the account): the home account id;
/// - the application's own tokens (client credentials, managed identity):
///   `"{clientId}_{tenant}_AppTokenCache"`, the tenant empty for an authority that names none;
/// - tokens obtained on behalf of a caller: the hash of the caller's assertion, the
///   `user_assertion_hash` the tokens are cached under.
package struct TokenCachePartition: Sendable, Equatable {
    /// Whose tokens the partition holds.
    package enum Kind: Sendable, Equatable {
        case account
        case application
        case onBehalfOf
    }

    package let kind: Kind
    /// The suggested storage key.
    package let key: String
    /// The home account id of the user the operation is about, when it is about one.
    package let homeAccountID: String?

    /// A signed-in user's tokens.
    package static func account(_ homeAccountID: String) -> TokenCachePartition {
        TokenCachePartition(kind: .account, key: homeAccountID, homeAccountID: homeAccountID)
    }

    /// The application's own tokens at `tenant` (`nil` or empty for `common`, `organizations` and
    /// authorities without a tenant).
    package static func application(clientID: String, tenant: String?) -> TokenCachePartition {
        TokenCachePartition(kind: .application, key: clientID + "_" + (tenant ?? "") + "_AppTokenCache", homeAccountID: nil)
    }

    /// Tokens obtained with the caller's assertion whose hash is `assertionHash`, for the user
    /// `homeAccountID` when it is known (after the token response).
    package static func onBehalfOf(assertionHash: String, homeAccountID: String? = nil) -> TokenCachePartition {
        TokenCachePartition(kind: .onBehalfOf, key: assertionHash, homeAccountID: homeAccountID)
    }
}
