import Foundation
import MSALJOSE
import MSALSupport

/// The form fields that authenticate a confidential client at a token endpoint, from its
/// ``MSALClientCredential``.
///
/// With a Microsoft authority, a certificate's assertion is signed once and reused for
/// ``assertionReuse`` seconds of its ``assertionLifetime`` (as MSAL for Python does), per token
/// endpoint and header form; concurrent requests that find none share one signature. With any
/// other OpenID provider every token request gets a new assertion (a new `jti`): RFC 7523 §3 lets
/// a server refuse a replayed one, and glewlwyd does (its interop tests). An app's assertion
/// provider is called for every request, and what it returns is checked to be a compact JWT
/// before it is sent.
package final class ClientAuthentication: Sendable {
    /// `client_assertion_type` for a JWT (RFC 7523 §2.2).
    package static let jwtBearerAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// How long a signed assertion is valid (`exp` − `iat`), in seconds.
    package static let assertionLifetime: Int64 = 600
    /// How long a signed assertion is reused: until a minute before it expires.
    package static let assertionReuse: Double = 540
    /// The largest assertion an app's provider may return.
    package static let maximumAssertionSize = 16 * 1024

    private struct AssertionKey: Hashable, Sendable {
        var tokenEndpoint: String
        var sha256: Bool
        var sendX5C: Bool
    }

    /// What one token request tells the credential beyond its endpoint: a certificate
    /// assertion's `x5c` choice for this request, and what an app's assertion provider is told
    /// (``MSALClientAssertionRequest``).
    package struct RequestContext: Sendable {
        /// Overrides the certificate credential's `sendX5C` (``MSALClientCredentialParameters/sendX5C``).
        package var sendX5C: Bool?
        /// ``MSALClientAssertionRequest/clientAssertionFmiPath``.
        package var clientAssertionFmiPath: String?
        /// ``MSALClientAssertionRequest/claims``.
        package var claims: String?
        /// ``MSALClientAssertionRequest/clientCapabilities``.
        package var clientCapabilities: [String]?

        package init(
            sendX5C: Bool? = nil, clientAssertionFmiPath: String? = nil, claims: String? = nil, clientCapabilities: [String]? = nil
        ) {
            self.sendX5C = sendX5C
            self.clientAssertionFmiPath = clientAssertionFmiPath
            self.claims = claims
            self.clientCapabilities = clientCapabilities
        }
    }

    private let credential: MSALClientCredential
    private let clientID: String
    private let clock: any MSALClock
    private let assertions: SingleFlightCache<AssertionKey, String, MSALFailure>
    private let signatures = Atomic<Int>(0)

    /// Authentication for `clientID` with `credential`, timed by `clock`.
    package init(credential: MSALClientCredential, clientID: String, clock: any MSALClock) {
        self.credential = credential
        self.clientID = clientID
        self.clock = clock
        self.assertions = SingleFlightCache(capacity: 64, now: { clock.now() })
    }

    /// The certificate presented in TLS instead of form fields (``MSALClientCredential/tlsClientCertificate(_:)``).
    package var tlsCertificate: MSALClientCertificate? {
        if case .tlsCertificate(let certificate) = credential.kind { certificate } else { nil }
    }

    /// The credential's certificate, presented in TLS or signing assertions: what Microsoft
    /// Entra's mTLS proof of possession binds a token to.
    package var certificate: MSALClientCertificate? {
        switch credential.kind {
        case .tlsCertificate(let certificate), .certificate(let certificate, _, _): certificate
        case .secret, .assertion: nil
        }
    }

    /// How many assertions this value has signed with a certificate.
    package var signatureCount: Int { signatures.load(ordering: .relaxed) }

    /// The fields to add to a token request's form for `tokenEndpoint`.
    ///
    /// - Parameters:
    ///   - sha256Thumbprint: a certificate's assertion names it by `x5t#S256` and is signed PS256
    ///     (the Microsoft identity platform); otherwise `x5t` and RS256 (ADFS, generic providers).
    ///   - reusesAssertion: whether a certificate's signed assertion may be sent again until
    ///     ``assertionReuse`` has passed (Microsoft authorities); otherwise each call signs a new one.
    ///   - context: what this request tells the credential (``RequestContext``).
    package func formFields(
        tokenEndpoint: String, sha256Thumbprint: Bool, reusesAssertion: Bool = true, context: RequestContext = RequestContext()
    ) async throws -> [(String, String)] {
        switch credential.kind {
        case .secret(let secret):
            return [("client_secret", secret)]
        case .tlsCertificate:
            // RFC 8705 §2: the TLS handshake authenticates the client; the form names it only.
            return []
        case .certificate(let certificate, let credentialSendsX5C, let extraClaims):
            let sendX5C = context.sendX5C ?? credentialSendsX5C
            @Sendable func sign() throws(MSALFailure) -> String {
                do throws(JOSEError) {
                    let issuedAt = Int64(clock.now().timeIntervalSince1970.rounded(.down))
                    let signed = try certificate.certificate.signAssertion(
                        clientID: clientID, audience: tokenEndpoint, issuedAt: issuedAt, lifetime: Self.assertionLifetime,
                        jwtID: UUID().uuidString.lowercased(), thumbprint: sha256Thumbprint ? .sha256 : .sha1, sendX5C: sendX5C,
                        extraClaims: extraClaims)
                    signatures.add(1, ordering: .relaxed)
                    return signed
                } catch {
                    throw MSALFailure(error)
                }
            }
            let assertion: String
            if reusesAssertion {
                let key = AssertionKey(tokenEndpoint: tokenEndpoint, sha256: sha256Thumbprint, sendX5C: sendX5C)
                assertion = try await assertions.value(for: key) {
                    do throws(MSALFailure) {
                        return .init(.success(try sign()), timeToLive: Self.assertionReuse)
                    } catch {
                        return .init(.failure(error), timeToLive: nil)
                    }
                }
            } else {
                assertion = try sign()
            }
            return [("client_assertion_type", Self.jwtBearerAssertionType), ("client_assertion", assertion)]
        case .assertion(let provider):
            let request = MSALClientAssertionRequest(
                clientId: clientID, tokenEndpoint: tokenEndpoint, clientAssertionFmiPath: context.clientAssertionFmiPath,
                claims: context.claims, clientCapabilities: context.clientCapabilities)
            let assertion: String
            do {
                assertion = try await provider(request)
            } catch let error as MSALFailure {
                throw error
            } catch {
                throw MSALFailure(
                    .internal, internalCode: .clientAssertionFailed, message: "The client assertion provider failed: \(error)",
                    underlyingError: error)
            }
            return [("client_assertion_type", Self.jwtBearerAssertionType), ("client_assertion", try Self.checked(assertion))]
        }
    }

    /// `assertion` without surrounding white space, if it is a compact JWS or JWE of base64url
    /// segments (the provider's answer is never quoted in the error: it may be a secret).
    ///
    /// - Parameters:
    ///   - what: what the assertion is, for the message.
    ///   - refusal: the internal code of a refusal; `nil`: ``MSALInternalError/credentialTooLarge``
    ///     for an oversized one, ``MSALInternalError/clientAssertionFailed`` otherwise (a client
    ///     assertion provider's answer).
    static func checked(
        _ assertion: String, what: String = "client assertion", refusal: MSALInternalError? = nil
    ) throws(MSALFailure) -> String {
        let trimmed = assertion.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.utf8.count <= maximumAssertionSize else {
            throw MSALFailure(
                .internal, internalCode: refusal ?? .credentialTooLarge,
                message: "The \(what) is \(trimmed.utf8.count) bytes, over the \(maximumAssertionSize)-byte limit")
        }
        let segments = trimmed.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.count == 3 || segments.count == 5, segments[0].count > 0,
            segments.allSatisfy({ $0.allSatisfy(Base64URL.isAlphabet) })
        else {
            throw MSALFailure(
                .internal, internalCode: refusal ?? .clientAssertionFailed,
                message: "The \(what) is not a compact JWT (\(segments.count) segment(s), or bytes outside base64url)")
        }
        return trimmed
    }
}
