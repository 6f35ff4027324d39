import MSAL
import MSALJOSE

/// Interactive secrets with the nonce a recorded fixture's ID tokens carry, and a real random
/// PKCE pair and `state` (the signing-in user echoes the request's own `state`).
struct FixedNonceSecrets: InteractiveSecretsSource {
    var nonce: String

    func make() throws(JOSEError) -> InteractiveSecrets {
        InteractiveSecrets(pkce: try PKCE.generate(), state: try SecureRandom.urlSafeToken(), nonce: nonce)
    }
}
