import AsyncHTTPClient
import Foundation
import Hummingbird
import MSAL
import NIOCore

/// The API's routes: `GET /me/orders` requires the scope ``requiredScope`` and answers with what
/// the downstream API says about the caller, fetched on the caller's behalf. It takes a bearer
/// token, or a DPoP-bound token (RFC 9449) with its proof for the request; `GET /health` answers
/// without any check, and `GET /health/authorized` after validating the token and requiring the
/// scope, without calling anything (the pair measures what validation costs).
struct OrdersAPI: Sendable {
    let validator: MSALAccessTokenValidator
    let application: MSALConfidentialClientApplication
    let requiredScope: String
    let downstreamURL: String
    let downstreamScopes: [String]
    let httpClient: HTTPClient
    /// The scheme, host and port clients call the service at: a DPoP proof's `htu` names it.
    let publicURL: String

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("health") { _, _ in "ok" }
        router.get("health/authorized") { request, _ -> Response in
            do {
                let caller = try await validator.validate(authorizationHeader: request.headers[.authorization])
                try caller.require(scopes: [requiredScope])
                return Self.text(.ok, "ok")
            } catch {
                return Self.challenge(for: error)
            }
        }
        router.get("me/orders") { request, _ -> Response in
            await orders(request)
        }
        return router
    }

    /// Validates the caller's token — a bearer token, or a DPoP token with its proof — requires the
    /// scope, then calls the downstream API as the caller.
    func orders(_ request: Request) async -> Response {
        let header = request.headers[.authorization]
        let caller: AccessToken
        do {
            // RFC 9449 §4.3: a request with more than one DPoP header is refused.
            let proofs = request.headers[values: .init("DPoP")!]
            guard proofs.count <= 1, let url = URL(string: publicURL + request.uri.path) else {
                throw MSALFailure(.internal, internalCode: .dpopProofInvalid, message: "More than one DPoP header")
            }
            caller = try await validator.validate(
                authorizationHeader: header, dpopProof: proofs.first, httpMethod: request.method.rawValue, requestURL: url)
            try caller.require(scopes: [requiredScope])
        } catch {
            return Self.challenge(for: error)
        }
        do {
            // The caller's token, whichever scheme presented it.
            let incoming = header.flatMap { $0.split(separator: " ", maxSplits: 1).last.map(String.init) } ?? ""
            let token = try await application.acquireTokenOnBehalfOf(userAssertion: incoming, scopes: downstreamScopes)
            var downstream = HTTPClientRequest(url: downstreamURL)
            downstream.headers.add(name: "Authorization", value: token.authorizationHeader)
            let response = try await httpClient.execute(downstream, timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 1 << 20)
            guard response.status == .ok else {
                return Self.text(.badGateway, "The downstream API answered \(response.status.code)")
            }
            // Both the caller's claims and the downstream answer are encoded, never spliced into the JSON.
            guard let user = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) else {
                return Self.text(.badGateway, "The downstream API's answer is not JSON")
            }
            let answer: [String: Any] = [
                "caller": caller.objectID ?? "",
                "tokenSource": token.tokenSource == .cache ? "cache" : "identityProvider",
                "downstream": user,
            ]
            let json = try JSONSerialization.data(withJSONObject: answer, options: [.sortedKeys])
            return Self.json(.ok, String(decoding: json, as: UTF8.self))
        } catch let error as MSALFailure where error.code == .interactionRequired {
            // The caller must sign in again (conditional access, consent): its client gets the claims.
            return Self.text(.unauthorized, "interaction_required")
        } catch {
            return Self.text(.badGateway, "The downstream call failed: \(error)")
        }
    }

    /// The RFC 6750 answer to a validation failure: 401 `invalid_token`, 403 `insufficient_scope`.
    static func challenge(for error: any Error) -> Response {
        let challenge = MSALBearerChallenge(for: error)
        var headers = HTTPFields()
        if let value = challenge.headerValue { headers[.wwwAuthenticate] = value }
        if let nonce = challenge.dpopNonce { headers[.init("DPoP-Nonce")!] = nonce }
        return Response(status: HTTPResponse.Status(code: challenge.status), headers: headers)
    }

    static func text(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(
            status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func json(_ status: HTTPResponse.Status, _ json: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
    }
}
