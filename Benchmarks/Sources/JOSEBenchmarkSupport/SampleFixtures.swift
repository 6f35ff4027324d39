import Foundation

/// The signed samples in `Fixtures/Samples/` at the repository root, and the
/// claim values they were made with (see that folder's README.md).
public enum SampleFixtures {
    /// `<repo>/Fixtures/Samples`, found from this source file's location
    /// (`<repo>/Benchmarks/Sources/JOSEBenchmarkSupport/SampleFixtures.swift`).
    public static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // JOSEBenchmarkSupport
        .deletingLastPathComponent()  // Sources
        .deletingLastPathComponent()  // Benchmarks (the package)
        .deletingLastPathComponent()  // repository root
        .appendingPathComponent("Fixtures/Samples")

    /// The tokens' `iss`.
    public static let issuer = "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0"
    /// The tokens' `aud`: the client id they were issued to.
    public static let clientID = "6cb04018-a3f5-46a7-b995-940c78f5aef3"
    /// The tokens' `nonce`.
    public static let nonce = "123523"
    /// Inside the tokens' validity window (nbf 1700000000, exp 1700003600).
    public static let now = Date(timeIntervalSince1970: 1_700_001_000)

    /// The contents of the fixture file `name` in ``directory``; stops the run if it cannot be read.
    public static func bytes(_ name: String) -> [UInt8] {
        let url = directory.appendingPathComponent(name)
        guard let data = try? Data(contentsOf: url) else {
            fatalError("cannot read fixture \(url.path)")
        }
        return [UInt8](data)
    }

    /// A text fixture without its trailing newline.
    public static func text(_ name: String) -> String {
        String(decoding: bytes(name), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// One algorithm's sample: the token, its public key (PEM) and its `kid`.
public struct SampleCase: Sendable {
    /// "RS256" or "ES256".
    public let algorithm: String
    /// The `kid` of the signing key, as in the token's header and in `jwks.json`.
    public let keyID: String
    /// The compact JWS, without a trailing newline.
    public let token: String
    /// The public key as a SubjectPublicKeyInfo PEM.
    public let publicKeyPEM: String

    /// `id-token-rs256.jwt`, signed with the RSA 2048-bit key `sample-rsa-2048`.
    public static let rs256 = SampleCase(
        algorithm: "RS256", keyID: "sample-rsa-2048",
        token: SampleFixtures.text("id-token-rs256.jwt"),
        publicKeyPEM: SampleFixtures.text("rsa-2048-public.pem"))

    /// `id-token-es256.jwt`, signed with the P-256 key `sample-ec-p256`.
    public static let es256 = SampleCase(
        algorithm: "ES256", keyID: "sample-ec-p256",
        token: SampleFixtures.text("id-token-es256.jwt"),
        publicKeyPEM: SampleFixtures.text("ec-p256-public.pem"))

    /// `access-token-rs256.jwt`: an Entra v2.0 access token for the API whose client id is
    /// ``SampleFixtures/clientID`` (`scp` `access_as_user User.Read`), signed with `sample-rsa-2048`.
    public static let accessTokenRS256 = SampleCase(
        algorithm: "RS256", keyID: "sample-rsa-2048",
        token: SampleFixtures.text("access-token-rs256.jwt"),
        publicKeyPEM: SampleFixtures.text("rsa-2048-public.pem"))

    /// The token's three segments as ASCII bytes.
    public var segments: (header: ArraySlice<UInt8>, payload: ArraySlice<UInt8>, signature: ArraySlice<UInt8>) {
        let utf8 = Array(token.utf8)
        let parts = utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        precondition(parts.count == 3, "sample token is not a compact JWS")
        return (parts[0], parts[1], parts[2])
    }

    /// What is signed: `header.payload`, exactly as the ASCII of the token.
    public var signingInput: [UInt8] {
        let utf8 = Array(token.utf8)
        let secondDot = utf8.lastIndex(of: UInt8(ascii: "."))!
        return Array(utf8[..<secondDot])
    }
}
