import Foundation

/// How a request's results present a bound token.
package enum TokenPresentation: Sendable {
    /// MSAL's PoP scheme (``MSALAuthenticationSchemePop``): as a signed HTTP request for one
    /// resource request — its method as sent, its URL and the resource's nonce — made afresh for
    /// each result.
    case signedHTTPRequest(key: ProofKey, method: String, url: URL, nonce: String?)
    /// DPoP (``MSALAuthenticationSchemeDPoP``): the token as issued, with `DPoP` as its
    /// `Authorization` scheme; each token request carries a proof, and the result makes the proofs
    /// of resource requests.
    case dpop(key: ProofKey)
    /// Microsoft Entra's mTLS proof of possession (``MSALAuthenticationSchemeMutualTLSPop``): the
    /// token request is made over TLS with `certificate`, which the token is bound to; the token
    /// is presented as issued, with `mtls_pop` as its `Authorization` scheme.
    case mutualTLS(certificate: MSALClientCertificate)

    /// The DPoP key, when the token requests carry DPoP proofs.
    package var dpopKey: ProofKey? {
        if case .dpop(let key) = self { key } else { nil }
    }
}

extension TokenClient {
    /// The scheme `requested` asks for and, for proof of possession, how each result presents the
    /// token (the application's key of that kind, made when first needed).
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/internalErrorInvalidParameter`` for a scheme
    ///   swift-msal does not know or a resource URL that is not `https` or `http` with a host; the
    ///   failure to make or read the key.
    package func tokenScheme(
        _ requested: (any MSALAuthenticationSchemeProtocol)?, correlationID: UUID
    ) throws(MSALFailure) -> (scheme: TokenScheme, presentation: TokenPresentation?) {
        switch requested {
        case nil, is MSALAuthenticationSchemeBearer:
            return (.bearer, nil)
        case let pop as MSALAuthenticationSchemePop:
            let scheme = pop.requestUrl.scheme?.lowercased()
            guard scheme == "https" || scheme == "http", let host = pop.requestUrl.host, !host.isEmpty else {
                throw MSALFailure(
                    .internal, internalCode: .internalErrorInvalidParameter,
                    message: "A proof-of-possession request needs the resource's https URL, with a host", correlationID: correlationID)
            }
            let key: ProofKey
            do throws(MSALFailure) {
                key = try proofKeys.key(.signedHTTPRequest)
            } catch {
                throw error.correlated(correlationID)
            }
            return (
                .pop(keyID: key.thumbprint),
                .signedHTTPRequest(
                    key: key, method: MSALParameterStringForHttpMethod(pop.httpMethod), url: pop.requestUrl, nonce: pop.nonce)
            )
        case is MSALAuthenticationSchemeDPoP:
            let key: ProofKey
            do throws(MSALFailure) {
                key = try proofKeys.key(.dpop)
            } catch {
                throw error.correlated(correlationID)
            }
            return (.dpop(keyID: key.thumbprint), .dpop(key: key))
        case is MSALAuthenticationSchemeMutualTLSPop:
            guard let certificate = clientAuthentication?.certificate else {
                throw MSALFailure(
                    .internal, internalCode: .internalErrorInvalidParameter,
                    message:
                        "mTLS proof of possession needs a certificate credential (MSALClientCredential.certificate or .tlsClientCertificate); this application has "
                        + (clientAuthentication == nil ? "none" : "a secret or an assertion provider"),
                    correlationID: correlationID)
            }
            return (.mtlsPop(keyID: certificate.x5tS256), .mutualTLS(certificate: certificate))
        case let other?:
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message:
                    "The authentication scheme \(type(of: other)) is not one swift-msal knows (MSALAuthenticationSchemeBearer, MSALAuthenticationSchemePop, MSALAuthenticationSchemeDPoP or MSALAuthenticationSchemeMutualTLSPop)",
                correlationID: correlationID)
        }
    }

    /// The token request fields of `scheme`: `token_type=pop` and `req_cnf` (the key's thumbprint)
    /// for MSAL's proof of possession; `token_type=mtls_pop` for Entra's mTLS proof of possession
    /// (the TLS handshake names the certificate); none for a bearer token or DPoP (whose proof is a header).
    package func tokenRequestFields(_ presentation: TokenPresentation?) -> [(String, String)] {
        switch presentation {
        case .signedHTTPRequest(let key, _, _, _):
            return [("token_type", TokenScheme.Kind.pop.tokenType), ("req_cnf", SignedHTTPRequest.requestConfirmation(key))]
        case .mutualTLS:
            return [("token_type", TokenScheme.Kind.mtlsPop.tokenType)]
        case .dpop, nil:
            return []
        }
    }

    /// `result` as `presentation` shows it: its access token in a signed HTTP request made now, or
    /// as a DPoP token whose result makes resource proofs; `result` itself for a bearer token.
    package func present(_ result: MSALResult, _ presentation: TokenPresentation?) throws(MSALFailure) -> MSALResult {
        switch presentation {
        case nil:
            return result
        case .dpop(let key):
            return result.presented(scheme: "DPoP", headerScheme: "DPoP", token: result.boundAccessToken, dpopKey: key)
        case .mutualTLS:
            return result.presented(scheme: "mtls_pop", headerScheme: "mtls_pop", token: result.boundAccessToken)
        case .signedHTTPRequest(let key, let method, let url, let nonce):
            let signed: String
            do throws(MSALFailure) {
                signed = try SignedHTTPRequest.make(
                    key: key, accessToken: result.boundAccessToken, method: method, url: url, nonce: nonce, timestamp: nowSeconds)
            } catch {
                throw error.correlated(result.correlationId)
            }
            return result.presented(scheme: "Pop", headerScheme: "PoP", token: signed)
        }
    }
}
