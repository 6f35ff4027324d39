#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The claims of a validated access token that an API decides with, read from its ``JWT``.
///
/// Delegated tokens (a user signed in to a client that calls the API) carry the granted scopes in
/// `scp`; app tokens (a client calling as itself) carry application permissions in `roles`.
public struct AccessToken: Sendable {
    /// The underlying token, its signature verified.
    public let jwt: JWT

    /// Whether the token is sender-constrained: it has a `cnf` claim (RFC 7800), binding it to a
    /// key (DPoP's `jkt`, MSAL's PoP `kid`) or a certificate (mutual TLS's `x5t#S256`). Such a token
    /// is never accepted as a bearer token.
    public let isSenderConstrained: Bool

    /// Wraps a verified token.
    public init(jwt: JWT) {
        self.jwt = jwt
        self.isSenderConstrained = jwt.claims.root["cnf"] != nil
    }

    /// `cnf.jkt`: the RFC 7638 thumbprint of the DPoP key the token is bound to (RFC 9449 §6); `nil`
    /// for a token not bound to a DPoP key.
    public var dpopKeyThumbprint: String? { jwt.claims.root["cnf"]?["jkt"]?.string }

    /// `cnf` `x5t#S256`: the base64url SHA-256 thumbprint of the client certificate the token is
    /// bound to (RFC 8705 §3.1); `nil` for a token not bound to a certificate.
    public var certificateThumbprint: String? { jwt.claims.root["cnf"]?["x5t#S256"]?.string }

    /// Whether `cnf` binds the token to something besides `member` (a certificate and a key, say):
    /// a presentation that proves `member` alone does not prove such a token's possession.
    package func isBound(beyond member: String) -> Bool {
        guard let confirmation = jwt.claims.root["cnf"] else { return false }
        guard confirmation.kind == .object else { return true }
        return confirmation.count != 1 || confirmation[member] == nil
    }

    /// `iss`.
    public var issuer: String? { jwt.stringClaim("iss") }
    /// `aud`, as a list.
    public var audience: [String] { jwt.stringListClaim("aud") ?? [] }
    /// `sub`: the subject (the user, or the calling application for an app token).
    public var subject: String? { jwt.stringClaim("sub") }
    /// `oid`: the object id of the user or of the calling application's service principal.
    public var objectID: String? { jwt.stringClaim("oid") }
    /// `tid`: the tenant the token was issued in.
    public var tenantID: String? { jwt.stringClaim("tid") }
    /// The calling client's id: `azp` (v2.0), else `appid` (v1.0), else `client_id` (RFC 9068).
    public var clientID: String? { jwt.stringClaim("azp") ?? jwt.stringClaim("appid") ?? jwt.stringClaim("client_id") }
    /// `ver`: "1.0" or "2.0" for Microsoft Entra tokens.
    public var version: String? { jwt.stringClaim("ver") }
    /// The delegated permissions: `scp` (Entra) or `scope` (RFC 9068), split at spaces.
    public var scopes: [String] {
        let text = jwt.stringClaim("scp") ?? jwt.stringClaim("scope") ?? ""
        return text.split(separator: " ").map(String.init)
    }
    /// The application permissions (or app roles of a user): `roles`.
    public var roles: [String] { jwt.stringListClaim("roles") ?? [] }
    /// Whether the token was issued to an application acting as itself: `idtyp` is `app`, or it
    /// carries roles and no scopes.
    public var isAppToken: Bool {
        if let type = jwt.stringClaim("idtyp") { return type == "app" }
        return jwt.claims.root["scp"] == nil && jwt.claims.root["scope"] == nil && jwt.claims.root["roles"] != nil
    }
    /// `exp`.
    public var expiresOn: Date? { jwt.numberClaim("exp").map { Date(timeIntervalSince1970: $0) } }
}
