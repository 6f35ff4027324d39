import Foundation
import MSALJSON
import MSALSupport
import Testing

@testable import MSALJOSE

/// Signing keys generated once per test process and shared by every suite
/// (generating an RSA key costs tens of milliseconds).
enum TestKeys {
    /// The trusted RSA key (RS256, kid `rsa-main`).
    static let rsa = make { () throws(JOSEError) in try JWSSigningKey.generateRSA(keyID: "rsa-main") }
    /// A second trusted RSA key (RS256, kid `rsa-second`), for "several keys" cases.
    static let rsaSecond = make { () throws(JOSEError) in try JWSSigningKey.generateRSA(keyID: "rsa-second") }
    /// The trusted P-256 key (ES256, kid `ec-p256`).
    static let p256 = make { () throws(JOSEError) in try JWSSigningKey.generateEC(keyID: "ec-p256", algorithm: .es256) }
    /// The trusted P-384 key (ES384, kid `ec-p384`).
    static let p384 = make { () throws(JOSEError) in try JWSSigningKey.generateEC(keyID: "ec-p384", algorithm: .es384) }
    /// An attacker's RSA key that claims the trusted key's kid.
    static let attackerRSA = make { () throws(JOSEError) in try JWSSigningKey.generateRSA(keyID: "rsa-main") }
    /// An attacker's P-256 key that claims the trusted EC key's kid.
    static let attackerP256 = make { () throws(JOSEError) in try JWSSigningKey.generateEC(keyID: "ec-p256", algorithm: .es256) }
    /// A 1024-bit RSA key, below the accepted minimum.
    static let weakRSA1024 = make { () throws(JOSEError) in try JWSSigningKey.generateRSA(bits: 1024, keyID: "rsa-1024") }

    private static func make(_ body: () throws(JOSEError) -> JWSSigningKey) -> JWSSigningKey {
        do {
            return try body()
        } catch {
            fatalError("test key generation failed: \(error)")
        }
    }
}

/// Builds ID tokens, key sets and validation options for the bad-input suites.
///
/// The defaults describe one valid ID token: signed by ``TestKeys/rsa``,
/// issued by ``issuer`` to ``clientID`` with ``nonce``, valid from
/// ``issuedAt`` to ``expiry``, and checked at ``now`` (inside that window).
enum TestTokenFactory {
    static let tenantID = "9188040d-6c67-4c5b-b112-36a304b66dad"
    static let otherTenantID = "72f988bf-86f1-41af-91ab-2d7cd011db47"
    static let clientID = "6cb04018-a3f5-46a7-b995-940c78f5aef3"
    static let issuer = "https://login.microsoftonline.com/\(tenantID)/v2.0"
    static let issuerTemplate = "https://login.microsoftonline.com/{tenantid}/v2.0"
    static let nonce = "n-0S6_WzA2Mj"
    static let issuedAt: Int64 = 1_700_000_000
    static let expiry: Int64 = 1_700_003_600
    /// The validation time used unless a test says otherwise (inside the validity window).
    static let now: Double = 1_700_001_000
    static let defaultSkew: Double = 300

    // MARK: Claims

    /// The claims of a valid ID token, in a fixed order.
    static let validClaims: [JSONMember] = [
        JSONMember(name: "ver", value: .string("2.0")),
        JSONMember(name: "iss", value: .string(issuer)),
        JSONMember(name: "sub", value: .string("AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ")),
        JSONMember(name: "aud", value: .string(clientID)),
        JSONMember(name: "exp", value: .integer(expiry)),
        JSONMember(name: "iat", value: .integer(issuedAt)),
        JSONMember(name: "nbf", value: .integer(issuedAt)),
        JSONMember(name: "oid", value: .string("00000000-0000-0000-66f3-3332eca7ea81")),
        JSONMember(name: "tid", value: .string(tenantID)),
        JSONMember(name: "nonce", value: .string(nonce)),
        JSONMember(name: "preferred_username", value: .string("user@example.com")),
    ]

    /// The valid claims with `changes` applied: a `nil` value removes the member,
    /// another value replaces it in place, and new names are appended.
    static func claims(_ changes: KeyValuePairs<String, JSON?> = [:]) -> JSON {
        var members = validClaims
        for (name, value) in changes {
            if let index = members.firstIndex(where: { $0.name == name }) {
                if let value {
                    members[index].value = value
                } else {
                    members.remove(at: index)
                }
            } else if let value {
                members.append(JSONMember(name: name, value: value))
            }
        }
        return .object(members)
    }

    /// The valid claims as compact JSON text with `changes` applied (see ``claims(_:)``).
    static func claimsText(_ changes: KeyValuePairs<String, JSON?> = [:]) -> String {
        JSONWriter.string(claims(changes))
    }

    // MARK: Keys

    /// The public JWK of `key` as a JSON object, with members replaced (or, with `nil`, removed).
    static func jwk(of key: JWSSigningKey, _ changes: KeyValuePairs<String, JSON?> = [:]) -> JSON {
        let jwk = unwrap({ () throws(JOSEError) in try key.publicJWK() })
        guard case .object = jwk else {
            fatalError("publicJWK() is not an object")
        }
        return jwk.replacingMembers(changes)
    }

    /// A JWK set document `{"keys":[…]}` as bytes.
    static func keySetJSON(_ entries: [JSON]) -> [UInt8] {
        JSONWriter.write(.object(["keys": .array(entries)]))
    }

    /// A key set parsed from the public JWKs of `keys`.
    static func keySet(_ keys: JWSSigningKey...) -> JSONWebKeySet {
        unwrap { () throws(JOSEError) in try JSONWebKeySet(json: keySetJSON(keys.map { jwk(of: $0) })) }
    }

    /// The trusted set: ``TestKeys/rsa``, ``TestKeys/p256`` and ``TestKeys/p384``.
    static let trustedKeySet: JSONWebKeySet = keySet(TestKeys.rsa, TestKeys.p256, TestKeys.p384)

    // MARK: Tokens

    /// A signed token with the default header (`alg`, `kid`, `typ`) plus `extraHeader`.
    static func token(claims: JSON = claims(), key: JWSSigningKey = TestKeys.rsa, extraHeader: [JSONMember] = []) -> String {
        unwrap { () throws(JOSEError) in try key.sign(claims: claims, extraHeader: extraHeader) }
    }

    /// A token whose header and payload are exactly these JSON texts, validly signed by `key`.
    static func token(header: String, payload: String, key: JWSSigningKey = TestKeys.rsa) -> String {
        token(headerBytes: Array(header.utf8), payloadBytes: Array(payload.utf8), key: key)
    }

    /// A token whose header and payload are exactly these bytes (which need not be JSON or UTF-8), validly signed by `key`.
    static func token(headerBytes: [UInt8], payloadBytes: [UInt8], key: JWSSigningKey = TestKeys.rsa) -> String {
        unwrap { () throws(JOSEError) in try key.sign(headerBytes: headerBytes, payloadBytes: payloadBytes) }
    }

    /// The default header of `key` as JSON text: `{"alg":…,"kid":…,"typ":"JWT"}`.
    static func headerText(for key: JWSSigningKey = TestKeys.rsa, alg: String? = nil, kid: String? = nil) -> String {
        #"{"alg":"\#(alg ?? key.algorithm.rawValue)","kid":"\#(kid ?? key.keyID)","typ":"JWT"}"#
    }

    /// `headerSegment.payloadSegment.signature`, where `signature` is `key`'s signature over the two
    /// segments exactly as given (so segments that are not valid base64url still carry a valid signature).
    static func signSegments(_ headerSegment: String, _ payloadSegment: String, key: JWSSigningKey = TestKeys.rsa) -> String {
        let input = "\(headerSegment).\(payloadSegment)"
        let signature = unwrap { () throws(JOSEError) in try key.signature(over: Array(input.utf8)) }
        return "\(input).\(Base64URL.encode(signature))"
    }

    /// Base64url (no padding) of a string's UTF-8.
    static func segment(_ text: String) -> String {
        Base64URL.encode(Array(text.utf8))
    }

    /// The token's three segments.
    static func segments(of token: String) -> [String] {
        token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// The signing input of a compact token: its first two segments and the dot between them.
    static func signingInput(of token: String) -> [UInt8] {
        let parts = segments(of: token)
        return Array("\(parts[0]).\(parts[1])".utf8)
    }

    /// The decoded signature bytes of a compact token.
    static func signatureBytes(of token: String) -> [UInt8] {
        unwrap { () throws(JOSEError) in try Base64URL.decode(segments(of: token)[2]) }
    }

    /// `token` with its signature segment replaced by the base64url of `signature`.
    static func replacingSignature(of token: String, with signature: [UInt8]) -> String {
        let parts = segments(of: token)
        return "\(parts[0]).\(parts[1]).\(Base64URL.encode(signature))"
    }

    // MARK: Verification

    static func options(
        issuer: String = issuer, clientID: String = clientID, nonce: String? = nonce, clockSkew: Double = defaultSkew
    ) -> IDTokenValidationOptions {
        IDTokenValidationOptions(issuer: issuer, clientID: clientID, nonce: nonce, clockSkew: clockSkew)
    }

    /// Verifies the signature only.
    @discardableResult
    static func verify(_ token: String, keySet: JSONWebKeySet = trustedKeySet) throws(JOSEError) -> JWT {
        try JWTVerifier(keySet: keySet).verify(token)
    }

    /// Verifies the signature and validates the claims.
    @discardableResult
    static func validate(
        _ token: String, keySet: JSONWebKeySet = trustedKeySet, options: IDTokenValidationOptions = options(), now: Double = now
    ) throws(JOSEError) -> IDToken {
        try IDTokenValidator(keySet: keySet, options: options).validate(token, now: Date(timeIntervalSince1970: now))
    }

    // MARK: Byte helpers

    /// Bytes from hexadecimal text (a fixed test input: not hex is a broken test).
    static func bytes(hex: String) -> [UInt8] {
        guard let bytes = Hex.decode(hex) else { preconditionFailure("not hex: \(hex)") }
        return bytes
    }

    /// Order n of P-256 (FIPS 186-4 D.1.2.3), big-endian.
    static let p256Order = bytes(hex: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
    /// Order n of P-384 (FIPS 186-4 D.1.2.4), big-endian.
    static let p384Order = bytes(hex: "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973")

    /// The ASN.1 DER `ECDSA-Sig-Value` for a JWS R‖S signature (what OpenSSL produces natively).
    static func derECDSASignature(fromRawRS raw: [UInt8]) -> [UInt8] {
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let half = raw.count / 2
        let body = integer(raw[..<half]) + integer(raw[half...])
        precondition(body.count < 128)
        return [0x30, UInt8(body.count)] + body
    }

    /// Seconds taken by `body`.
    static func seconds(_ body: () -> Void) -> Double {
        let duration = ContinuousClock().measure(body)
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    static func unwrap<T>(_ body: () throws(JOSEError) -> T) -> T {
        do {
            return try body()
        } catch {
            fatalError("test setup failed: \(error)")
        }
    }
}

/// Runs `body` and records an issue unless it throws a ``JOSEError`` with `code`
/// whose message contains every string in `fragments` (case-insensitively).
@discardableResult
func expectJOSEError(
    _ code: JOSEError.Code,
    mentioning fragments: [String] = [],
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws(JOSEError) -> Void
) -> JOSEError? {
    do {
        try body()
    } catch {
        #expect(error.code == code, "expected \(code.rawValue), got \(error)", sourceLocation: sourceLocation)
        for fragment in fragments {
            #expect(
                error.message.localizedCaseInsensitiveContains(fragment),
                "message \"\(error.message)\" does not mention \"\(fragment)\"", sourceLocation: sourceLocation)
        }
        return error
    }
    Issue.record("expected \(code.rawValue), but nothing was thrown", sourceLocation: sourceLocation)
    return nil
}
