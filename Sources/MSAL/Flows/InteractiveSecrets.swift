import MSALJOSE

/// The per-request secrets of an interactive sign-in: PKCE verifier, `state` and `nonce`.
package struct InteractiveSecrets: Sendable {
    package var pkce: PKCE
    package var state: String
    package var nonce: String

    package init(pkce: PKCE, state: String, nonce: String) {
        self.pkce = pkce
        self.state = state
        self.nonce = nonce
    }
}

/// Where interactive secrets come from: the system's secure random generator, or — for recorded
/// conformance scenarios, whose signed ID tokens carry a fixed `nonce` — fixed values. Not public:
/// an app can never weaken them.
package protocol InteractiveSecretsSource: Sendable {
    func make() throws(JOSEError) -> InteractiveSecrets
}

/// Fresh secrets from the operating system's random generator (32 bytes each).
package struct SecureInteractiveSecrets: InteractiveSecretsSource {
    package init() {}

    package func make() throws(JOSEError) -> InteractiveSecrets {
        InteractiveSecrets(pkce: try PKCE.generate(), state: try SecureRandom.urlSafeToken(), nonce: try SecureRandom.urlSafeToken())
    }
}
