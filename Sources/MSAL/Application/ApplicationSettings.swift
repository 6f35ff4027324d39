/// The settings the public, confidential and managed-identity applications share: one value inside
/// each configuration, behind its public properties, read and copied whole (issue 44). A setting
/// added here reaches all three applications through ``ApplicationWiring``.
package struct ApplicationSettings: Sendable {
    /// The authority tokens are requested from unless the parameters name another (managed
    /// identity: ``ManagedIdentityFlow/placeholderAuthority``; its tokens come from the platform).
    package var authority: MSALAuthority
    package var knownAuthorities: [MSALAuthority] = []
    package var validatesAuthority = true
    package var clientApplicationCapabilities: [String]? = nil
    /// Reserved scopes left out of user token requests (MSAL for Python's `exclude_scopes`).
    package var excludedScopes: [String]? = nil
    package var tokenExpirationBuffer: Double = 300
    package var cacheConfig: MSALCacheConfig
    package var transport: (any MSALHTTPTransport)? = nil
    package var clock: (any MSALClock)? = nil
    /// The environment variables read instead of the process's (`nil`: the process's).
    package var environment: [String: String]? = nil

    /// ``tokenExpirationBuffer`` in whole seconds, never negative.
    package var expiryBuffer: Int64 { Int64(max(0, tokenExpirationBuffer).rounded()) }

    /// How authorities are validated before use.
    package var validation: AuthorityValidationPolicy {
        AuthorityValidationPolicy(validatesAuthority: validatesAuthority, knownAuthorities: knownAuthorities)
    }
}
