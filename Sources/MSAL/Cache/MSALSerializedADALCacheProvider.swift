import Foundation
import MSALSupport

/// The cache of ADAL for macOS, which MSAL for macOS reads and writes alongside its own for single
/// sign-on with ADAL apps (MSAL for iOS's `MSALSerializedADALCacheProvider`).
///
/// It exists so that code written for MSAL for iOS and macOS compiles: swift-msal never reads or
/// writes an ADAL cache, nothing in its configuration takes this object, and the delegate is never
/// called. The object only keeps the bytes given to ``deserialize(_:)`` and hands them back from
/// ``serializeData()``.
public final class MSALSerializedADALCacheProvider: Sendable {
    /// The app's object that loads and saves the cache. Never called on Linux.
    public let delegate: any MSALSerializedADALCacheProviderDelegate
    private let serialized = Mutex(Data())

    /// Creates a provider for the app's ADAL cache.
    ///
    /// Kept so that code written for MSAL for iOS and macOS compiles; on Linux it never throws, and
    /// the provider is used by nothing.
    @available(*, deprecated, message: "No ADAL for macOS cache on Linux: swift-msal never uses it")
    public init(delegate: any MSALSerializedADALCacheProviderDelegate) throws {
        self.delegate = delegate
    }

    /// The cache's bytes: on Linux, those last given to ``deserialize(_:)``, or none. Never throws.
    public func serializeData() throws -> Data {
        serialized.withLock { $0 }
    }

    /// Replaces the cache with `serializedData`: on Linux, keeps the bytes as they are, unread,
    /// for ``serializeData()``. Never throws.
    public func deserialize(_ serializedData: Data) throws {
        serialized.withLock { $0 = serializedData }
    }
}
