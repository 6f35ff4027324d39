import Foundation
import MSALJOSE
import MSALJSON
import Testing

@testable import MSAL

/// ``MSALAccessTokenValidator/validate(authorizationHeader:clientCertificate:correlationID:)``: a
/// certificate-bound token (RFC 8705 §3) is accepted only over a connection made with its
/// certificate, as `Bearer` or as Entra's `mtls_pop`; everything else gets a typed refusal and
/// the challenge the API answers.
@Suite("Access-token validation over mutual TLS: certificate-bound tokens (cnf x5t#S256)")
struct MutualTLSValidationTests {
    typealias Validation = AccessTokenValidatorTests

    /// Two client certificates' DER encodings and their `x5t#S256`.
    static let certificates: [(der: [UInt8], x5t: String)] = {
        do {
            return try (0..<2).map { index in
                let generated = try ClientCertificate.generateSelfSigned(commonName: "client \(index)")
                let certificate = try ClientCertificate(privateKeyPEM: generated.privateKeyPEM, certificatePEM: generated.certificatePEM)
                return (certificate.chain[0], Base64URL.encode(certificate.sha256Thumbprint))
            }
        } catch {
            fatalError("test certificates could not be made: \(error)")
        }
    }()

    static func bound(_ setup: Validation.Setup, to x5t: String) throws -> String {
        try Validation.token(setup.clock) { $0["cnf"] = .object([JSONMember(name: "x5t#S256", value: .string(x5t))]) }
    }

    static func refusal(_ body: () async throws -> AccessToken) async -> MSALFailure? {
        do {
            let token = try await body()
            Issue.record("expected a refusal, the token of \(token.subject ?? "?") was accepted")
        } catch let error as MSALFailure {
            return error
        } catch {
            Issue.record("expected an MSALFailure, got \(error)")
        }
        return nil
    }

    @Test(
        "A certificate-bound token over a connection with its certificate is accepted as Bearer and as mtls_pop, again from the validated-token memory; without a certificate or with another one it is refused (certificateBindingMismatch, 401 invalid_token)"
    )
    func boundToken() async throws {
        let setup = try Validation.setup()
        let (mine, other) = (Self.certificates[0], Self.certificates[1])
        let token = try Self.bound(setup, to: mine.x5t)
        for scheme in ["Bearer", "mtls_pop", "MTLS_POP"] {
            let accepted = try await setup.validator.validate(authorizationHeader: "\(scheme) \(token)", clientCertificate: mine.der)
            #expect(accepted.certificateThumbprint == mine.x5t && accepted.isSenderConstrained)
        }
        for certificate in [nil, [], other.der] as [[UInt8]?] {
            let refused = await Self.refusal {
                try await setup.validator.validate(authorizationHeader: "Bearer \(token)", clientCertificate: certificate)
            }
            #expect(refused?.internalCode == .certificateBindingMismatch)
            let challenge = try #require(refused.map { MSALBearerChallenge(for: $0) })
            #expect(challenge.status == 401 && challenge.error == "invalid_token")
        }
        // Without the certificate entry point it proves nothing: refused as a bearer token.
        let asBearer = await Self.refusal { try await setup.validator.validate(authorizationHeader: "Bearer \(token)") }
        #expect(asBearer?.internalCode == .accessTokenSchemeMismatch)
    }

    @Test(
        "An unbound token is accepted as Bearer over mutual TLS and refused as mtls_pop; a DPoP-bound token is refused; other schemes, none, and text that is not a compact JWT are accessTokenMissing; a malformed JWT is refused as on the bearer path"
    )
    func otherTokens() async throws {
        let setup = try Validation.setup()
        let mine = Self.certificates[0]
        let plain = try Validation.token(setup.clock)
        let accepted = try await setup.validator.validate(authorizationHeader: "Bearer \(plain)", clientCertificate: mine.der)
        #expect(!accepted.isSenderConstrained && accepted.certificateThumbprint == nil)
        let asPop = await Self.refusal {
            try await setup.validator.validate(authorizationHeader: "mtls_pop \(plain)", clientCertificate: mine.der)
        }
        #expect(asPop?.internalCode == .accessTokenSchemeMismatch)
        let dpopBound = try Validation.token(setup.clock) { $0["cnf"] = .object([JSONMember(name: "jkt", value: .string("abc"))]) }
        let dpop = await Self.refusal {
            try await setup.validator.validate(authorizationHeader: "Bearer \(dpopBound)", clientCertificate: mine.der)
        }
        #expect(dpop?.internalCode == .accessTokenSchemeMismatch)
        for header in [nil, "DPoP \(plain)", "Basic abc", "Bearer", "Bearer tok@en!"] as [String?] {
            let missing = await Self.refusal {
                try await setup.validator.validate(authorizationHeader: header, clientCertificate: mine.der)
            }
            #expect(missing?.internalCode == .accessTokenMissing, "\(header ?? "nil")")
        }
        // A malformed JWT is refused as the bearer entry point refuses it.
        let malformed = await Self.refusal {
            try await setup.validator.validate(authorizationHeader: "Bearer a.b.c", clientCertificate: mine.der)
        }
        let asBearer = await Self.refusal { try await setup.validator.validate(authorizationHeader: "Bearer a.b.c") }
        #expect(malformed?.internalCode != nil && malformed?.internalCode == asBearer?.internalCode)
    }

    @Test("A bound token that is otherwise invalid (expired, wrong audience) is refused as such, certificate or not")
    func invalidBoundToken() async throws {
        let setup = try Validation.setup()
        let mine = Self.certificates[0]
        let expired = try Validation.token(setup.clock) {
            $0["cnf"] = .object([JSONMember(name: "x5t#S256", value: .string(mine.x5t))])
            $0["exp"] = .integer(Int64(setup.clock.now().timeIntervalSince1970) - 3600)
        }
        let refused = await Self.refusal {
            try await setup.validator.validate(authorizationHeader: "Bearer \(expired)", clientCertificate: mine.der)
        }
        #expect(refused?.internalCode == .idTokenExpired)
        let foreign = try Validation.token(setup.clock) {
            $0["cnf"] = .object([JSONMember(name: "x5t#S256", value: .string(mine.x5t))])
            $0["aud"] = .string("api://someone-else")
        }
        let audience = await Self.refusal {
            try await setup.validator.validate(authorizationHeader: "Bearer \(foreign)", clientCertificate: mine.der)
        }
        #expect(audience?.internalCode != nil && audience?.internalCode != .certificateBindingMismatch)
    }

    @Test("An Authorization header's scheme and credentials: spaces and tabs around them are dropped; without both there are none")
    func credentialsParsing() {
        let read = { (header: String?) in MSALAccessTokenValidator.credentials(header).map { (String($0.scheme), $0.token) } }
        #expect(read("DPoP abc")! == ("DPoP", "abc"))
        #expect(read("  Bearer \t  a.b.c \t ")! == ("Bearer", "a.b.c"))
        #expect(read("mtls_pop\ttok")! == ("mtls_pop", "tok"))
        #expect(read("Bearer a b")! == ("Bearer", "a b"), "what follows the scheme is the credentials, checked by the caller")
        #expect(read("é x")! == ("é", "x"))
        for none in [nil, "", "Bearer", "Bearer   ", "   ", "\t\t"] as [String?] {
            #expect(read(none) == nil, "\(String(describing: none))")
        }
        #expect(read("Bearer " + String(repeating: "a", count: JWTVerifier.defaultMaximumTokenSize + 1)) == nil)
    }

    @Test(
        "A token bound to a certificate and a key (cnf with x5t#S256 and jkt) is refused on both paths: the certificate alone, or a DPoP proof alone, does not prove it"
    )
    func doublyBoundToken() async throws {
        let setup = try Validation.setup()
        let mine = Self.certificates[0]
        let token = try Validation.token(setup.clock) {
            $0["cnf"] = .object([JSONMember(name: "x5t#S256", value: .string(mine.x5t)), JSONMember(name: "jkt", value: .string("abc"))])
        }
        let overTLS = await Self.refusal {
            try await setup.validator.validate(authorizationHeader: "Bearer \(token)", clientCertificate: mine.der)
        }
        #expect(overTLS?.internalCode == .accessTokenSchemeMismatch)
        let asDPoP = await Self.refusal {
            try await setup.validator.validate(
                authorizationHeader: "DPoP \(token)", dpopProof: "a.b.c", httpMethod: "GET", requestURL: URL(string: "https://api.example")!
            )
        }
        #expect(asDPoP?.internalCode == .accessTokenSchemeMismatch)
        // cnf that is not an object binds to nothing provable.
        let odd = try Validation.token(setup.clock) { $0["cnf"] = .string(mine.x5t) }
        let oddRefused = await Self.refusal {
            try await setup.validator.validate(authorizationHeader: "Bearer \(odd)", clientCertificate: mine.der)
        }
        #expect(oddRefused?.internalCode == .accessTokenSchemeMismatch)
    }

}
