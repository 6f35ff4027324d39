import MSALJOSE
import MSALJSON
import MSALSupport

/// The emulator's signing keys: the one new tokens are signed with, and the retired ones still
/// published (a rotation that keeps the previous key, as Entra publishes keys before and after
/// using them), with the key set and document built once per rotation.
struct EmulatorSigningKeys: Sendable {
    let current: JWSSigningKey
    let retired: [JWSSigningKey]
    /// Every published key's public half.
    let keySet: JSONWebKeySet
    /// `{"keys":[…]}`, the current key first.
    let document: JSON

    init(current: JWSSigningKey, retired: [JWSSigningKey]) throws(MSALEmulatorError) {
        self.current = current
        self.retired = retired
        do {
            let published = [current] + retired
            self.keySet = JSONWebKeySet(keys: try published.map { try $0.publicKey() })
            self.document = .object(["keys": .array(try published.map { try $0.publicJWK() })])
        } catch {
            throw MSALEmulatorError(.keyGenerationFailed, "cannot publish the RSA signing key: \(error)")
        }
    }

    /// A new 2048-bit RSA key (RS256) with a random `kid`.
    static func generate() throws(MSALEmulatorError) -> JWSSigningKey {
        do {
            let keyID = Base64URL.encode(try SecureRandom.bytes(count: 15))
            return try JWSSigningKey.generateRSA(bits: 2048, keyID: keyID, algorithm: .rs256)
        } catch {
            throw MSALEmulatorError(.keyGenerationFailed, "cannot create the RSA signing key: \(error)")
        }
    }
}
