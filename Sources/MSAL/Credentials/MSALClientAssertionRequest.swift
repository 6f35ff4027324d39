/// What an application's client assertion provider is asked for: an assertion for this client,
/// to be sent to this token endpoint (its audience).
public struct MSALClientAssertionRequest: Sendable, Hashable {
    /// The application (client) id, the assertion's `iss` and `sub`.
    public let clientId: String
    /// The token endpoint the assertion is sent to, its `aud`.
    public let tokenEndpoint: String

    /// Creates a request (tests of an app's provider use this).
    public init(clientId: String, tokenEndpoint: String) {
        self.clientId = clientId
        self.tokenEndpoint = tokenEndpoint
    }
}
