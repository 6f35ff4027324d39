extension MSALEmulator {
    /// An application registered with the emulator as a public client.
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

        /// Creates a client registration.
        public init(clientID: String, displayName: String, redirectURIs: [String] = ["http://localhost"], isFamilyMember: Bool = false) {
            self.clientID = clientID
            self.displayName = displayName
            self.redirectURIs = redirectURIs
            self.isFamilyMember = isFamilyMember
        }
    }
}
