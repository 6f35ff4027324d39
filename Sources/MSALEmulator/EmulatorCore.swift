import Foundation
import MSALJOSE
import MSALJSON
import MSALSupport

/// The emulator's endpoints and state, independent of the socket that feeds it requests.
final class EmulatorCore: Sendable {
    let configuration: MSALEmulator.Configuration
    /// The key tokens are signed with and the keys published; replaced by a rotation.
    private let signingKeys: Mutex<EmulatorSigningKeys>
    let state: Mutex<EmulatorState>
    /// Each confidential client's registered certificates, read once (client id → verifiers).
    let assertionVerifiers: [String: [ClientAssertionVerifier]]
    /// `http://127.0.0.1:<port>` once bound.
    private let originValue = Mutex("http://127.0.0.1:0")

    init(configuration: MSALEmulator.Configuration) throws(MSALEmulatorError) {
        try configuration.validate()
        self.configuration = configuration
        self.signingKeys = Mutex(try EmulatorSigningKeys(current: EmulatorSigningKeys.generate(), retired: []))
        self.state = Mutex(EmulatorState(lifetimes: configuration.lifetimes.clamped))
        var verifiers: [String: [ClientAssertionVerifier]] = [:]
        for client in configuration.clients {
            for case .certificate(let pem) in client.credentials {
                do {
                    verifiers[client.clientID, default: []].append(try ClientAssertionVerifier(certificatePEM: Array(pem.utf8)))
                } catch {
                    throw MSALEmulatorError(
                        .invalidConfiguration, "client \(client.clientID) has a certificate that cannot be read: \(error.message)")
                }
            }
        }
        self.assertionVerifiers = verifiers
    }

    /// The key new tokens are signed with.
    var signingKey: JWSSigningKey { signingKeys.withLock { $0.current } }
    /// The published keys' public halves, for the protected resource's and the OBO grant's checks.
    var keySet: JSONWebKeySet { signingKeys.withLock { $0.keySet } }
    /// The JWK set document served at `/discovery/v2.0/keys`.
    var keySetDocument: JSON { signingKeys.withLock { $0.document } }

    /// Signs with a new key from now on; the old one stays published when `keepingPrevious`.
    /// Returns the new key's `kid`.
    func rotateSigningKey(keepingPrevious: Bool) throws(MSALEmulatorError) -> String {
        let next = try EmulatorSigningKeys.generate()
        let rotated = try signingKeys.withLock { keys throws(MSALEmulatorError) in
            let rotated = try EmulatorSigningKeys(current: next, retired: keepingPrevious ? [keys.current] + keys.retired : [])
            keys = rotated
            return rotated
        }
        return rotated.current.keyID
    }

    /// `http://127.0.0.1:<port>`: where the emulator listens.
    var boundOrigin: String {
        get { originValue.withLock { $0 } }
        set { originValue.withLock { $0 = newValue } }
    }

    /// The origin the emulator names itself by in what it publishes (issuers, endpoints, the
    /// audience of client assertions): ``MSALEmulator/Configuration/advertisedOrigin``, else
    /// ``boundOrigin``.
    var origin: String {
        configuration.advertisedOrigin ?? boundOrigin
    }

    /// The host (and port) of ``origin``, as instance discovery names it.
    var hostAndPort: String {
        let origin = self.origin
        guard let separator = origin.range(of: "://") else { return origin }
        return String(origin[separator.upperBound...])
    }

    /// The emulator's clock: the system clock plus the offset of ``MSALEmulator/advanceClock(by:)``.
    func now() -> Date {
        Date().addingTimeInterval(state.withLock { $0.clockOffset })
    }

    /// The issuer of tokens for `tenantID`.
    func issuer(tenantID: String) -> String {
        "\(origin)/\(tenantID)/v2.0"
    }

    // MARK: Directory

    /// Which tenant a path segment names.
    enum TenantSelector: Sendable {
        case common
        case organizations
        case tenant(MSALEmulator.Tenant)

        /// The tenant id for endpoints and issuers: the tenant's id, or the segment for the multi-tenant aliases.
        var pathSegment: String {
            switch self {
            case .common: "common"
            case .organizations: "organizations"
            case .tenant(let tenant): tenant.id
            }
        }
    }

    /// The hosted tenant, `common` or `organizations` that `segment` names; `nil` otherwise (also `consumers`).
    func tenantSelector(_ segment: Substring) -> TenantSelector? {
        let folded = segment.lowercased()
        switch folded {
        case "common": return .common
        case "organizations": return .organizations
        default: return configuration.tenant(named: folded).map { .tenant($0) }
        }
    }

    /// The tenant `user` signs into through `selector`: a hosted tenant the user has a profile in,
    /// or the home tenant for `common`/`organizations`; `nil` when the user cannot sign in there.
    func signInTenant(of user: MSALEmulator.User, through selector: TenantSelector) -> String? {
        switch selector {
        case .common, .organizations: user.tenantID
        case .tenant(let tenant): user.objectID(inTenant: tenant.id) == nil ? nil : tenant.id
        }
    }

    /// The users who can sign in through `selector`.
    func users(signingInThrough selector: TenantSelector) -> [MSALEmulator.User] {
        configuration.users.filter { signInTenant(of: $0, through: selector) != nil }
    }

    /// The user whose home object id is `objectID`.
    func user(homeObjectID objectID: String) -> MSALEmulator.User? {
        configuration.users.first { $0.objectID == objectID }
    }

    /// A new random value for codes and tokens: 32 bytes as base64url.
    static func randomToken() -> String {
        (try? SecureRandom.urlSafeToken()) ?? UUID().uuidString + UUID().uuidString
    }
}
