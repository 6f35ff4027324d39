import MSALJOSE

extension MSALEmulator {
    /// An application registered with the emulator: a public client, or a confidential client when
    /// it has ``credentials``.
    public struct Client: Sendable, Hashable {
        /// The application (client) id, usually a GUID; compared exactly.
        public var clientID: String
        /// The name shown on the sign-in page.
        public var displayName: String
        /// The registered redirect URIs.
        ///
        /// A loopback URI (`http://localhost`, `http://127.0.0.1`, `http://[::1]`) matches a request's
        /// `redirect_uri` on the same host and path with any port (RFC 8252 §7.3); an empty path
        /// counts as `/`. Every other URI must match exactly.
        public var redirectURIs: [String]
        /// Whether the client is in the family of client ids (FOCI): its responses carry `foci: "1"`
        /// and its refresh tokens are family refresh tokens that any family client may redeem.
        public var isFamilyMember: Bool
        /// How a confidential client proves who it is at the token endpoint. Empty for a public
        /// client, which must present none; a confidential client must present one of them with
        /// every grant, and only a confidential client may use `client_credentials` and the
        /// on-behalf-of grant.
        public var credentials: [Credential]
        /// The application permissions (app roles) granted to the client, by resource (for example
        /// `["https://graph.microsoft.com": ["User.Read.All"]]`): the `roles` claim of the app tokens it
        /// gets for that resource.
        public var appRoles: [String: [String]]
        /// Whether the token endpoint accepts one signed client assertion more than once within its
        /// lifetime, as Microsoft Entra ID does (MSAL reuses an assertion for about nine minutes).
        /// Either way a `jti` seen in a different assertion is refused as a replay.
        public var acceptsReusedAssertions: Bool

        /// A confidential client's credential.
        public enum Credential: Sendable, Hashable {
            /// A client secret, presented as `client_secret` (compared in constant time).
            case secret(String)
            /// A certificate in PEM: the client signs `private_key_jwt` assertions (RFC 7523, RS256 or
            /// PS256) with its key and names it by `x5t#S256` or `x5t`.
            case certificate(pem: String)
        }

        /// Whether the client has credentials.
        public var isConfidential: Bool { !credentials.isEmpty }

        /// Creates a client registration.
        public init(
            clientID: String, displayName: String, redirectURIs: [String] = ["http://localhost"], isFamilyMember: Bool = false,
            credentials: [Credential] = [], appRoles: [String: [String]] = [:], acceptsReusedAssertions: Bool = true
        ) {
            self.clientID = clientID
            self.displayName = displayName
            self.redirectURIs = redirectURIs
            self.isFamilyMember = isFamilyMember
            self.credentials = credentials
            self.appRoles = appRoles
            self.acceptsReusedAssertions = acceptsReusedAssertions
        }
    }
}

extension MSALEmulator.Client {
    /// A new RSA-2048 key and a self-signed certificate for it, as PEM text: register the
    /// certificate with ``Credential/certificate(pem:)`` and give the key and certificate to the
    /// confidential client under test.
    ///
    /// - Parameter commonName: the certificate's subject and issuer common name.
    /// - Throws: ``MSALEmulatorError/Code/keyGenerationFailed`` if OpenSSL fails.
    public static func makeCertificate(
        commonName: String = "MSAL Emulator client"
    ) throws(MSALEmulatorError) -> (
        privateKeyPEM: String, certificatePEM: String
    ) {
        do {
            let material = try ClientCertificate.generateSelfSigned(commonName: commonName)
            return (String(decoding: material.privateKeyPEM, as: UTF8.self), String(decoding: material.certificatePEM, as: UTF8.self))
        } catch {
            throw MSALEmulatorError(.keyGenerationFailed, "cannot make the client certificate: \(error.message)")
        }
    }
}
