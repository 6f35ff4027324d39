import Foundation
import MSALJOSE
import MSALJSON

extension EmulatorCore {
    /// `GET /resource/me`: the user of a valid access token, as JSON.
    ///
    /// A token bound to a key by `cnf.kid` (MSAL's PoP) is taken only as `PoP` inside a signed HTTP
    /// request for this request by that key; one bound to a DPoP key only as `DPoP` with a proof of it; one bound to a client
    /// certificate (`cnf` `x5t#S256`) only over a connection whose TLS terminator forwarded that
    /// certificate (``MSALEmulator/Configuration/clientCertificateHeader``), as `Bearer` or `mtls_pop`.
    func resource(_ request: EmulatorHTTPRequest, info: inout EmulatorRequestInfo) async -> EmulatorHTTPResponse {
        let challenge = "Bearer realm=\"\", authorization_uri=\"\(origin)/common/oauth2/v2.0/authorize\""
        func unauthorized(_ description: String?) -> EmulatorHTTPResponse {
            var value = challenge
            var body: [JSONMember] = [JSONMember(name: "error", value: .string(description == nil ? "unauthorized" : "invalid_token"))]
            if let description {
                // Descriptions may quote the request: no control character, quote or backslash in the header.
                value += ", error=\"invalid_token\", error_description=\"\(EmulatorText.headerQuoted(description))\""
                body.append(JSONMember(name: "error_description", value: .string(description)))
            }
            var response = EmulatorHTTPResponse.json(.object(body), status: 401, headers: [("WWW-Authenticate", value)])
            response.oauthError = description == nil ? nil : "invalid_token"
            return response
        }
        guard let header = request.header("authorization") else { return unauthorized(nil) }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        let scheme = parts.first?.lowercased()
        guard parts.count == 2, scheme == "bearer" || scheme == "dpop" || scheme == "mtls_pop" || scheme == "pop" else {
            return unauthorized("The Authorization header is not a Bearer, DPoP, PoP or mtls_pop token.")
        }
        var token = String(parts[1]).trimmingCharacters(in: .whitespaces)
        // MSAL's PoP: the credentials are a signed HTTP request for this request, carrying the token.
        var signedBy: String?
        if scheme == "pop" {
            let path = request.path.isEmpty ? "/" : request.path
            do {
                let signed = try SignedHTTPRequestVerifier().verify(
                    token, method: request.method, host: request.header("host") ?? "", path: path,
                    now: Int64(self.now().timeIntervalSince1970.rounded(.down)))
                token = signed.accessToken
                signedBy = signed.thumbprint
            } catch {
                // The verifier's message may quote the request (a crit name); `unauthorized` makes it
                // fit for the WWW-Authenticate header.
                return unauthorized("The signed HTTP request is not valid: \(EmulatorText.sanitized(error.message))")
            }
        }
        let jwt: JWT
        do {
            jwt = try JWTVerifier(keySet: keySet, allowedAlgorithms: [.rs256], maximumTokenSize: 16 * 1024).verify(token)
        } catch {
            return unauthorized("The token's signature is invalid or it was not issued by this emulator.")
        }
        // MSAL's PoP: a token bound by cnf.kid only inside a signed request by that key.
        let keyID = jwt.claims.root["cnf"]?["kid"]?.string
        if scheme == "pop" || keyID != nil {
            guard let keyID, let signedBy else {
                return unauthorized(
                    scheme == "pop"
                        ? "The token in the signed request is not bound to a key (cnf.kid)."
                        : "The token is bound to a key: present it as PoP, in a signed request.")
            }
            guard keyID == signedBy else { return unauthorized("The signed request is signed by another key than the token's.") }
        }
        // RFC 9449 §7: a DPoP-bound token only with a proof of its key, never as a bearer token.
        let boundTo = jwt.claims.root["cnf"]?["jkt"]?.string
        if scheme == "dpop" || boundTo != nil {
            if let refusal = dpopRefusal(request, token: token, boundTo: boundTo, scheme: scheme) { return refusal }
        }
        // RFC 8705 §3: a certificate-bound token only over a connection made with its certificate.
        let certificate = jwt.claims.root["cnf"]?["x5t#S256"]?.string
        if scheme == "mtls_pop", certificate == nil {
            return unauthorized("The token presented as mtls_pop is not bound to a certificate.")
        }
        if let certificate {
            let presented: [UInt8]?
            do throws(EmulatorOAuthError) {
                presented = try tlsCertificateSHA256(request)
            } catch {
                return unauthorized("The forwarded client certificate cannot be read.")
            }
            guard let presented else {
                return unauthorized("The token is bound to a client certificate and the connection presented none.")
            }
            guard Base64URL.encode(presented) == certificate else {
                return unauthorized("The token is bound to another client certificate than the connection's.")
            }
        }
        guard let tenantID = jwt.stringClaim("tid"), tenantSelector(Substring(tenantID)) != nil,
            !EmulatorText.reservedTenants.contains(tenantID),
            jwt.stringClaim("iss") == issuer(tenantID: tenantID)
        else { return unauthorized("The token's issuer is not one of the emulator's tenants.") }
        guard jwt.stringListClaim("aud") == [configuration.resourceAudience] else {
            return unauthorized("The token's audience is not \(configuration.resourceAudience).")
        }
        let now = self.now().timeIntervalSince1970
        guard let expiry = jwt.numberClaim("exp"), expiry > now else { return unauthorized("The token is expired.") }
        if let notBefore = jwt.numberClaim("nbf"), notBefore > now + 300 { return unauthorized("The token is not valid yet.") }
        let username = jwt.stringClaim("preferred_username") ?? ""
        if let tokenID = jwt.stringClaim("uti"), state.withLock({ $0.revokedAccessTokens.contains(tokenID) }) {
            return unauthorized("The token was revoked.")
        }
        info.clientID = jwt.stringClaim("azp")
        info.username = username
        if let fault = await faultAnswer(&info, clientID: info.clientID, username: username) {
            return errorResponse(fault, info: info)
        }
        return .json(
            .object([
                "id": .string(jwt.stringClaim("oid") ?? ""),
                "displayName": .string(jwt.stringClaim("name") ?? ""),
                "userPrincipalName": .string(username),
                "mail": .string(username),
                "tenantId": .string(tenantID),
                "clientId": .string(jwt.stringClaim("azp") ?? ""),
                "scopes": .array((jwt.stringClaim("scp") ?? "").split(separator: " ").map { .string(String($0)) }),
            ]))
    }

    /// The resource's 401 for a DPoP request whose token or proof fails (RFC 9449 §7.1); `nil` when
    /// the token is presented as `DPoP` with a valid proof of the key it is bound to.
    private func dpopRefusal(_ request: EmulatorHTTPRequest, token: String, boundTo: String?, scheme: String?) -> EmulatorHTTPResponse? {
        func refuse(_ error: String, _ description: String, nonce: String? = nil) -> EmulatorHTTPResponse {
            // The description may echo a proof's values: no quote, backslash or control character in the header.
            let quoted = EmulatorText.headerQuoted(description)
            var headers = [("WWW-Authenticate", "DPoP algs=\"ES256 RS256 PS256\", error=\"\(error)\", error_description=\"\(quoted)\"")]
            if let nonce { headers.append(("DPoP-Nonce", nonce)) }
            var response = EmulatorHTTPResponse.json(
                .object([
                    JSONMember(name: "error", value: .string(error)), JSONMember(name: "error_description", value: .string(description)),
                ]),
                status: 401, headers: headers)
            response.oauthError = error
            return response
        }
        guard let boundTo else { return refuse("invalid_token", "The token is not bound to a DPoP key.") }
        guard scheme == "dpop" else {
            return refuse("invalid_token", "The token is bound to a DPoP key: present it as DPoP, with a proof.")
        }
        let proof: DPoPProofVerifier.Proof?
        do throws(EmulatorOAuthError) {
            proof = try dpopProof(request, accessToken: token)
        } catch {
            return refuse(error.error, error.description, nonce: error.headers.first { $0.name == "DPoP-Nonce" }?.value)
        }
        guard let proof else { return refuse("invalid_dpop_proof", "The request carries no DPoP proof.") }
        guard proof.thumbprint == boundTo else {
            return refuse("invalid_dpop_proof", "The DPoP proof is signed by another key than the token's.")
        }
        return nil
    }
}
