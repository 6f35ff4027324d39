import Foundation
import MSALSupport

/// What a ``MSALTokenCacheSerializer`` sees around one cache operation: the serialized cache to
/// store, or the place to load the stored one into. Valid only during the hook call.
public final class MSALTokenCacheAccess: Sendable {
    /// The application whose operation this is.
    public let clientId: String
    /// The home account id the operation is about, when it is about one account.
    public let accountIdentifier: String?
    /// Whether the operation may change the cache (saving tokens, removing an account).
    public let isWrite: Bool
    /// The key under which a store that keeps the cache in partitions loads and stores this
    /// operation's part of it, as MSAL for .NET suggests it (see
    /// ``MSALTokenCacheSerializer/storesPartitions``):
    ///
    /// - the home account id for a confidential client's user (a web app's silent call, its
    ///   authorization-code redemption, looking the account up, removing it);
    /// - `"{clientId}_{tenant}_AppTokenCache"` for the application's own tokens (client
    ///   credentials, managed identity), the tenant empty when the authority names none;
    /// - the hash of the caller's assertion (base64url SHA-256, the cache's `user_assertion_hash`)
    ///   for tokens obtained on behalf of a caller.
    ///
    /// `nil` for a public client (its cache is one document: its account list spans every account)
    /// and for operations that span partitions, such as listing every account.
    public let suggestedCacheKey: String?
    /// Whether the operation is about the application's own tokens (client credentials, managed
    /// identity) rather than a user's.
    public let isApplicationCache: Bool

    private struct State {
        var document: TokenCacheDocument
        var loaded: TokenCacheDocument?
        var hasStateChanged: Bool
    }

    private let state: Mutex<State>

    package init(
        clientId: String, partition: TokenCachePartition?, suggestsKey: Bool, isWrite: Bool, document: TokenCacheDocument,
        hasStateChanged: Bool
    ) {
        self.clientId = clientId
        self.accountIdentifier = partition?.homeAccountID
        self.suggestedCacheKey = suggestsKey ? partition?.key : nil
        self.isApplicationCache = partition?.kind == .application
        self.isWrite = isWrite
        self.state = Mutex(State(document: document, loaded: nil, hasStateChanged: hasStateChanged))
    }

    /// In `afterAccess`: whether the operation changed the cache, so it must be stored again.
    public var hasStateChanged: Bool { state.withLock { $0.hasStateChanged } }

    /// Whether the cache holds an access or a refresh token (in `afterAccess`: after the
    /// operation). A store may delete a partition that holds none.
    public var hasTokens: Bool {
        state.withLock { $0.loaded ?? $0.document }.hasTokens
    }

    /// When the cache's tokens are all expired, if they can be: the latest access token expiry when
    /// the cache holds no refresh token (which has no expiry), else `nil`. A store may let a
    /// partition expire then (for the application's own tokens, which come without refresh tokens).
    public var suggestedCacheExpiry: Date? {
        state.withLock { $0.loaded ?? $0.document }.expiryOfEveryToken
    }

    /// The cache in the unified JSON format that MSAL for Python, .NET, Java, Go and JavaScript share.
    public func serialize() -> Data {
        let document = state.withLock { $0.loaded ?? $0.document }
        return Data(document.serialized())
    }

    /// In `beforeAccess`: replaces the cache with a stored document (from ``serialize()`` or another
    /// MSAL library). Empty data is an empty cache.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/cacheCorrupt`` when `data` is not a cache document;
    ///   the cache is left as it was.
    public func deserialize(_ data: Data) throws {
        let document = try TokenCacheDocument(parsing: [UInt8](data))
        state.withLock { $0.loaded = document }
    }

    /// The document `deserialize` loaded, if any.
    package func takeLoadedDocument() -> TokenCacheDocument? {
        state.withLock { state in
            defer { state.loaded = nil }
            return state.loaded
        }
    }
}

/// An application's own storage for the token cache (a database, a secret store, a shared
/// file of its own): swift-msal calls `beforeAccess` before each cache operation, so the hook can
/// load the stored cache with ``MSALTokenCacheAccess/deserialize(_:)``, and `afterAccess` after it,
/// so the hook can store ``MSALTokenCacheAccess/serialize()`` when
/// ``MSALTokenCacheAccess/hasStateChanged``. This is the model of MSAL .NET and MSAL for Python.
///
/// Operations of one application run one at a time around the hooks. A hook must not call back
/// into the application. An error thrown by a hook fails the operation with
/// ``MSALInternalError/cacheHookFailed``.
///
/// A confidential client's store may keep the cache in partitions, one per
/// ``MSALTokenCacheAccess/suggestedCacheKey`` (per user, per application and tenant, per caller's
/// assertion), as MSAL for .NET's distributed caches do: it then says so with
/// ``storesPartitions``, loads the partition in `beforeAccess` and stores it in `afterAccess`.
public protocol MSALTokenCacheSerializer: Sendable {
    /// Called before the cache is read or changed.
    func beforeAccess(_ access: MSALTokenCacheAccess) throws
    /// Called after the cache was read or changed.
    func afterAccess(_ access: MSALTokenCacheAccess) throws
    /// Whether the hooks keep the cache in partitions. When `true`, every operation starts from an
    /// empty cache unless `beforeAccess` loads a document (its partition), so one partition's tokens
    /// are never stored under another's key. Default `false`: the cache in memory carries over
    /// from one operation to the next, and `beforeAccess` replaces it only when it loads a document.
    var storesPartitions: Bool { get }
}

extension MSALTokenCacheSerializer {
    /// `false`: the hooks store the cache as one document.
    public var storesPartitions: Bool { false }
}
