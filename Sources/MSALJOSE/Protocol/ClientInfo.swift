import MSALJSON

/// The `client_info` the Microsoft identity platform returns with tokens when
/// asked with `client_info=1`: base64url JSON with the user's `uid` and home
/// tenant `utid`. MSAL's home account id is `uid.utid`.
public struct ClientInfo: Sendable, Hashable {
    /// Unique id of the user in the home tenant.
    public let uid: String
    /// Home tenant id.
    public let utid: String

    /// Creates a value directly.
    public init(uid: String, utid: String) {
        self.uid = uid
        self.utid = utid
    }

    /// Decodes the raw `client_info` string (canonical `=` padding tolerated).
    ///
    /// - Throws: ``JOSEError/Code/invalidClientInfo`` naming the problem.
    public init(encoded: String) throws(JOSEError) {
        guard encoded.utf8.count <= 16 * 1024 else {
            throw JOSEError(.invalidClientInfo, "client_info is larger than 16 KiB")
        }
        let document: JSONDocument
        do throws(JOSEError) {
            let bytes = try Base64URL.decode(encoded, padding: .acceptCanonical)
            document = try JSONDocument.parsed(bytes, limits: .token)
        } catch {
            throw JOSEError(.invalidClientInfo, "client_info cannot be decoded: \(error.message)")
        }
        guard document.root.kind == .object else {
            throw JOSEError(.invalidClientInfo, "client_info is not a JSON object")
        }
        guard let uid = document.root["uid"]?.string, !uid.isEmpty else {
            throw JOSEError(.invalidClientInfo, "client_info has no string uid")
        }
        guard let utid = document.root["utid"]?.string, !utid.isEmpty else {
            throw JOSEError(.invalidClientInfo, "client_info has no string utid")
        }
        // The home account id joins them with a dot, which every MSAL splits at the first dot: a dot
        // inside either would make `uid.utid` name another account (Entra's are GUIDs, never dotted).
        guard !uid.contains("."), !utid.contains(".") else {
            throw JOSEError(
                .invalidClientInfo, "client_info's uid or utid contains a dot, so the home account id uid.utid would be ambiguous")
        }
        self.init(uid: uid, utid: utid)
    }

    /// The home account id, `uid.utid`.
    public var homeAccountID: String { "\(uid).\(utid)" }
}
