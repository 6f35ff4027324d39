import Foundation
import MSALJOSE

/// How a confidential client proves its identity to the token endpoint: a client secret, a
/// certificate that signs client assertions, or assertions that the application supplies (for
/// example workload identity federation).
///
/// The secret and the key never appear in ``description``, in logs or in errors.
public struct MSALClientCredential: Sendable, CustomStringConvertible {
    /// An application's client assertion provider: returns a signed JWT for the request.
    public typealias AssertionProvider = @Sendable (MSALClientAssertionRequest) async throws -> String

    enum Kind: Sendable {
        case secret(String)
        case certificate(MSALClientCertificate, sendX5C: Bool, extraClaims: [String: String])
        case assertion(AssertionProvider)
        case tlsCertificate(MSALClientCertificate)
    }

    let kind: Kind

    /// A client secret, sent as `client_secret` in the token request's body.
    public static func secret(_ secret: String) -> MSALClientCredential {
        MSALClientCredential(kind: .secret(secret))
    }

    /// A certificate: each token request carries an RFC 7523 client assertion signed with its key
    /// (PS256 and `x5t#S256`; RS256 and `x5t` for ADFS and generic OpenID Connect providers). An
    /// assertion lives 10 minutes. With a Microsoft authority it is reused for 9, so the key signs
    /// once per 9 minutes per token endpoint, not once per request; a generic OpenID Connect
    /// provider gets a new one (a new `jti`) for every token request, as it may refuse a replay.
    ///
    /// - Parameters:
    ///   - certificate: the key and certificate (chain) registered for the application.
    ///   - sendX5C: also send the certificate chain (`x5c`), for subject name and issuer
    ///     authentication, where the app's registration names the certificate's subject instead of
    ///     holding the certificate. A request may override it
    ///     (``MSALClientCredentialParameters/sendX5C``).
    ///   - extraClaims: claims signed into every assertion besides the registered ones, as string
    ///     values (MSAL.NET's `WithClientClaims`, MSAL for Python's `client_claims`). They cannot
    ///     name `aud`, `iss`, `sub`, `jti`, `nbf`, `iat` or `exp`: creating the application then
    ///     fails with ``MSALInternalError/internalErrorInvalidParameter``. At most 16 claims of at
    ///     most 1,024 bytes each.
    public static func certificate(
        _ certificate: MSALClientCertificate, sendX5C: Bool = false, extraClaims: [String: String] = [:]
    ) -> MSALClientCredential {
        MSALClientCredential(kind: .certificate(certificate, sendX5C: sendX5C, extraClaims: extraClaims))
    }

    /// The registered claims of a client assertion, which ``certificate(_:sendX5C:extraClaims:)``'s
    /// `extraClaims` cannot replace.
    static let registeredAssertionClaims: Set<String> = ["aud", "iss", "sub", "jti", "nbf", "iat", "exp"]

    /// Checks what the credential carries beyond its key: a certificate's extra claims.
    ///
    /// - Throws: ``MSALInternalError/internalErrorInvalidParameter`` naming the first claim refused.
    func validate() throws(MSALFailure) {
        guard case .certificate(_, _, let extraClaims) = kind, !extraClaims.isEmpty else { return }
        guard extraClaims.count <= 16 else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "The certificate credential has \(extraClaims.count) extra claims; at most 16 are allowed")
        }
        for (name, value) in extraClaims.sorted(by: { $0.key < $1.key }) {
            let shown = "'\(UntrustedText.escaped(name, limit: 64))'"
            guard !name.isEmpty, name.utf8.count <= 256, !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                throw MSALFailure(
                    .internal, internalCode: .internalErrorInvalidParameter,
                    message: "An extra assertion claim has an invalid name \(shown)")
            }
            guard !Self.registeredAssertionClaims.contains(name) else {
                throw MSALFailure(
                    .internal, internalCode: .internalErrorInvalidParameter,
                    message: "The extra assertion claim \(shown) would replace a registered claim of the client assertion")
            }
            guard value.utf8.count <= 1024 else {
                throw MSALFailure(
                    .internal, internalCode: .internalErrorInvalidParameter,
                    message: "The extra assertion claim \(shown) is \(value.utf8.count) bytes, over the 1024-byte limit")
            }
        }
    }

    /// Mutual TLS (RFC 8705 §2): the certificate is presented in the TLS handshake of every token
    /// request, which carries `client_id` and no secret or assertion. For a provider that
    /// registers the client for `tls_client_auth` (its certificate's subject or a subject
    /// alternative name) or `self_signed_tls_client_auth` (the certificate itself); the tokens it
    /// issues are bound to the certificate (`cnf` `x5t#S256`), and a resource takes them only over
    /// a TLS connection made with it.
    ///
    /// Token requests go to the provider's `mtls_endpoint_aliases` `token_endpoint` when its
    /// metadata names one, else to its `token_endpoint`. With a Microsoft Entra authority they go
    /// to the cloud's mTLS host (`mtlsauth.microsoft.com` for the public cloud, regional for app
    /// tokens when a region applies) — every token request of the client, app tokens, on-behalf-of,
    /// a web app's code redemption and refreshes, although Microsoft documents mTLS for app tokens;
    /// a multi-tenant authority, clouds without an mTLS host, AD FS, B2C and CIAM are refused.
    ///
    /// A provider's certificate-bound tokens are bearer tokens (RFC 8705 §3) and are cached as
    /// bearer tokens, not keyed by the certificate: after a certificate rotation the cached ones,
    /// bound to the old certificate, are answered until they expire (ask with `forceRefresh`, or
    /// start a new cache).
    ///
    /// The transport presents the certificate: ``MSALCurlTransport`` (the default) and
    /// `MSALAsyncHTTPClientTransport` do; `MSALURLSessionTransport` refuses such requests.
    public static func tlsClientCertificate(_ certificate: MSALClientCertificate) -> MSALClientCredential {
        MSALClientCredential(kind: .tlsCertificate(certificate))
    }

    /// Assertions from the application: `provider` is called for every token request that needs
    /// one and returns a signed JWT for it (an app that signs its own, or one from another identity
    /// provider under workload identity federation). Caching is the provider's choice.
    public static func assertion(_ provider: @escaping AssertionProvider) -> MSALClientCredential {
        MSALClientCredential(kind: .assertion(provider))
    }

    /// Workload identity federation on Kubernetes (AKS): the assertion is the service account
    /// token in the file that `AZURE_FEDERATED_TOKEN_FILE` names, or in `tokenFile`. The file is
    /// read again for every token request, since the platform rotates it.
    public static func workloadIdentity(tokenFile: String? = nil) -> MSALClientCredential {
        MSALClientCredential(
            kind: .assertion { _ in
                guard let path = tokenFile ?? ProcessInfo.processInfo.environment["AZURE_FEDERATED_TOKEN_FILE"], !path.isEmpty else {
                    throw MSALFailure(
                        .internal, internalCode: .clientAssertionFailed,
                        message: "Workload identity needs a token file: AZURE_FEDERATED_TOKEN_FILE is not set")
                }
                do {
                    // Text that is not UTF-8 is refused, not sent changed (U+FFFD in place of its bytes).
                    return try CredentialFile.readText(path, limit: MSALClientCertificate.maximumSize)
                } catch let error as MSALFailure where error.internalCode == .invalidCredential {
                    throw MSALFailure(
                        .internal, internalCode: .clientAssertionFailed, message: error.message, underlyingError: error)
                }
            })
    }

    /// The kind of credential, never its secret or key.
    public var description: String {
        switch kind {
        case .secret: return "MSALClientCredential.secret(<redacted>)"
        case .certificate(let certificate, let sendX5C, let extraClaims):
            let claims = extraClaims.isEmpty ? "" : ", extraClaims: \(extraClaims.keys.sorted())"
            return "MSALClientCredential.certificate(\(certificate), sendX5C: \(sendX5C)\(claims))"
        case .assertion: return "MSALClientCredential.assertion(<provider>)"
        case .tlsCertificate(let certificate): return "MSALClientCredential.tlsClientCertificate(\(certificate))"
        }
    }
}
