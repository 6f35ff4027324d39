/// What an application's client assertion provider is asked for: an assertion for this client,
/// to be sent to this token endpoint (its audience), for a request with this context — as
/// MSAL.NET's and MSAL Java's `AssertionRequestOptions` tell theirs.
public struct MSALClientAssertionRequest: Sendable, Hashable {
    /// The application (client) id, the assertion's `iss` and `sub`.
    public let clientId: String
    /// The token endpoint the assertion is sent to, its `aud`.
    public let tokenEndpoint: String
    /// The FMI path the assertion is for
    /// (``MSALClientCredentialParameters/fmiPathForClientAssertion``): an agent identity's
    /// provider asks its blueprint for the credential of this path. `nil` when the request names none.
    public let clientAssertionFmiPath: String?
    /// The claims the token request sends (`claims`: a claims challenge merged with the
    /// application's capabilities), as JSON; `nil` when it sends none.
    public let claims: String?
    /// The application's client capabilities
    /// (``MSALConfidentialClientApplicationConfig/clientApplicationCapabilities``), such as `CP1`;
    /// `nil` when it declares none.
    public let clientCapabilities: [String]?

    /// Creates a request (tests of an app's provider use this).
    public init(
        clientId: String, tokenEndpoint: String, clientAssertionFmiPath: String? = nil, claims: String? = nil,
        clientCapabilities: [String]? = nil
    ) {
        self.clientId = clientId
        self.tokenEndpoint = tokenEndpoint
        self.clientAssertionFmiPath = clientAssertionFmiPath
        self.claims = claims
        self.clientCapabilities = clientCapabilities
    }
}
