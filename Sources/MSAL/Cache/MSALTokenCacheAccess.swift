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

    private struct State {
        var document: TokenCacheDocument
        var loaded: TokenCacheDocument?
        var hasStateChanged: Bool
    }

    private let state: Mutex<State>

    package init(clientId: String, accountIdentifier: String?, isWrite: Bool, document: TokenCacheDocument, hasStateChanged: Bool) {
        self.clientId = clientId
        self.accountIdentifier = accountIdentifier
        self.isWrite = isWrite
        self.state = Mutex(State(document: document, loaded: nil, hasStateChanged: hasStateChanged))
    }

    /// In `afterAccess`: whether the operation changed the cache, so it must be stored again.
    public var hasStateChanged: Bool { state.withLock { $0.hasStateChanged } }

    /// The cache in the unified JSON format that MSAL for Python, .NET, Java, Go and JavaScript share.
    public func serialize() -> Data {
        let document = state.withLock { $0.loaded ?? $0.document }
        return Data(document.serialized())
    }

    /// In `beforeAccess`: replaces the cache with a stored document (from ``serialize()`` or another
    /// MSAL library). Empty data is an empty cache.
    ///
    /// - Throws: ``MSALError`` with ``MSALInternalError/cacheCorrupt`` when `data` is not a cache document;
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
public protocol MSALTokenCacheSerializer: Sendable {
    /// Called before the cache is read or changed.
    func beforeAccess(_ access: MSALTokenCacheAccess) throws
    /// Called after the cache was read or changed.
    func afterAccess(_ access: MSALTokenCacheAccess) throws
}
