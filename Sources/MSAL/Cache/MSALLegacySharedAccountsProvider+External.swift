/// MSAL for iOS's legacy shared accounts provider is an external account provider, so that code
/// adding one with ``MSALCacheConfig/addExternalAccountProvider(_:)`` compiles. Linux has no iOS
/// keychain to hold such accounts: it lists none and ignores updates and removals.
extension MSALLegacySharedAccountsProvider: MSALExternalAccountProviding {
    /// Does nothing: there is no legacy shared account storage on Linux to write to.
    public func update(_ account: any MSALAccountProtocol, idTokenClaims: [AnyHashable: Any]) throws {}

    /// Does nothing: there is no legacy shared account storage on Linux to remove from.
    public func remove(_ account: any MSALAccountProtocol, wipeAccount: Bool, tenantProfiles: [MSALTenantProfile]?) throws {}

    /// No accounts: there is no legacy shared account storage on Linux to read.
    public func accounts(with parameters: MSALAccountEnumerationParameters) throws -> [any MSALAccountProtocol] { [] }
}
