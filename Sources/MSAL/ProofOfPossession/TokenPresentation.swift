import Foundation

/// How a request's results present a bound token: as a signed HTTP request for one resource
/// request, made afresh for each result (MSAL's PoP scheme, ``MSALAuthenticationSchemePop``).
package struct TokenPresentation: Sendable {
    /// The key the token is bound to.
    package var key: ProofKey
    /// The resource request's method, as sent.
    package var method: String
    /// The resource request's URL.
    package var url: URL
    /// The resource's nonce, when it gave one.
    package var nonce: String?
}

extension TokenClient {
    /// The scheme `requested` asks for and, for proof of possession, how each result presents the
    /// token (the application's key of that kind, made when first needed).
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/internalErrorInvalidParameter`` for a scheme
    ///   swift-msal does not know or a resource URL that is not `https` or `http` with a host.
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
                TokenPresentation(key: key, method: MSALParameterStringForHttpMethod(pop.httpMethod), url: pop.requestUrl, nonce: pop.nonce)
            )
        case let other?:
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message:
                    "The authentication scheme \(type(of: other)) is not one swift-msal knows (MSALAuthenticationSchemeBearer or MSALAuthenticationSchemePop)",
                correlationID: correlationID)
        }
    }

    /// The token request fields of `scheme`: `token_type=pop` and `req_cnf` (the key's thumbprint)
    /// for MSAL's proof of possession; none for a bearer token.
    package func tokenRequestFields(_ presentation: TokenPresentation?) -> [(String, String)] {
        guard let presentation else { return [] }
        return [("token_type", TokenScheme.Kind.pop.tokenType), ("req_cnf", SignedHTTPRequest.requestConfirmation(presentation.key))]
    }

    /// `result` as `presentation` shows it: its access token in a signed HTTP request made now;
    /// `result` itself for a bearer token.
    package func present(_ result: MSALResult, _ presentation: TokenPresentation?) throws(MSALFailure) -> MSALResult {
        guard let presentation else { return result }
        let signed: String
        do throws(MSALFailure) {
            signed = try SignedHTTPRequest.make(
                key: presentation.key, accessToken: result.boundAccessToken, method: presentation.method, url: presentation.url,
                nonce: presentation.nonce, timestamp: nowSeconds)
        } catch {
            throw error.correlated(result.correlationId)
        }
        return result.presented(scheme: "Pop", headerScheme: "PoP", token: signed)
    }
}
