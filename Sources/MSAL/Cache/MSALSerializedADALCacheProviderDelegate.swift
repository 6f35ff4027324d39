/// What an app implements to load and save the ADAL for macOS cache around MSAL's use of it (MSAL
/// for iOS's `MSALSerializedADALCacheProviderDelegate`).
///
/// It exists so that code written for MSAL for iOS and macOS compiles: swift-msal never reads or
/// writes an ADAL cache, so it never calls these methods on Linux.
public protocol MSALSerializedADALCacheProviderDelegate: AnyObject, Sendable {
    /// Called by MSAL before it reads the ADAL cache. Never called on Linux.
    func willAccessCache(_ cache: MSALSerializedADALCacheProvider)
    /// Called by MSAL after it read the ADAL cache. Never called on Linux.
    func didAccessCache(_ cache: MSALSerializedADALCacheProvider)
    /// Called by MSAL before it changes the ADAL cache. Never called on Linux.
    func willWriteCache(_ cache: MSALSerializedADALCacheProvider)
    /// Called by MSAL after it changed the ADAL cache: the place to save it. Never called on Linux.
    func didWriteCache(_ cache: MSALSerializedADALCacheProvider)
}
