extension MSALPublicClientApplication {
    /// The version of swift-msal (`MSALVersion`), as MSAL for iOS's `sdkVersion` gives its own.
    /// Optional, as MSAL for iOS declares it; never `nil` here.
    public static var sdkVersion: String? { MSALVersion }
}
