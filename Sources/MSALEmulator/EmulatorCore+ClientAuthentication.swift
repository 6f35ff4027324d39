import Foundation
import MSALJOSE
import MSALJSON

/// How a token request's client proved who it is.
enum ClientProof: Sendable, Equatable {
    /// A public client: nothing presented.
    case none
    /// `client_secret`.
    case secret
    /// A `private_key_jwt` client assertion signed by a registered certificate.
    case certificate
    /// A registered certificate presented in TLS (RFC 8705): its `x5t#S256`.
    case tlsCertificate(x5tS256: String)
}

extension EmulatorCore {
    /// The URN of RFC 7523 client assertions (`client_assertion_type`).
    static let jwtBearerAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// The clock skew allowed on a client assertion's `exp` and `nbf`, in seconds.
    static let assertionClockSkew: TimeInterval = 300

    /// Checks the client authentication of a token request (`client_secret`, or
    /// `client_assertion_type` + `client_assertion`), as Microsoft Entra ID does: a public client
    /// must present nothing, a confidential client one of its registered credentials.
    ///
    /// - Parameter segment: the tenant segment of the request's path; an assertion's `aud` must be
    ///   the token endpoint under that segment or under the tenant's id.
    /// - Parameter tlsCertificateSHA256: the SHA-256 of the client certificate the connection's TLS
    ///   terminator forwarded (``MSALEmulator/Configuration/clientCertificateHeader``), if any.
    func authenticateClient(
        _ form: EmulatorParameters, client: MSALEmulator.Client, selector: TenantSelector, segment: Substring,
        tlsCertificateSHA256: [UInt8]? = nil, now: Date
    ) throws(EmulatorOAuthError) -> ClientProof {
        let secret = form["client_secret"]
        let assertion = form["client_assertion"]
        let assertionType = form["client_assertion_type"]
        guard client.isConfidential else {
            if secret != nil || assertion != nil || assertionType != nil {
                throw Self.invalidClient(
                    700025, "Client is public so neither 'client_assertion' nor 'client_secret' should be presented.")
            }
            return .none
        }
        switch (secret, assertion) {
        case (nil, nil) where tlsCertificateSHA256 != nil:
            let thumbprint = tlsCertificateSHA256 ?? []
            guard (assertionVerifiers[client.clientID] ?? []).contains(where: { $0.sha256Thumbprint == thumbprint }) else {
                throw Self.invalidClient(
                    700027, "The client certificate presented in TLS is not registered on application '\(client.clientID)'.")
            }
            return .tlsCertificate(x5tS256: Base64URL.encode(thumbprint))
        case (nil, nil):
            throw Self.invalidClient(
                7000218, "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.")
        case (.some, .some):
            throw EmulatorOAuthError(
                "invalid_request", 900144, "The request presents both 'client_secret' and 'client_assertion'; send one of them.")
        case (let secret?, nil):
            try checkSecret(secret, client: client)
            return .secret
        case (nil, let assertion?):
            guard assertionType == Self.jwtBearerAssertionType else {
                throw Self.invalidClient(
                    50027,
                    "The client_assertion_type must be '\(Self.jwtBearerAssertionType)', not '\(EmulatorText.sanitized(assertionType ?? "", limit: 96))'."
                )
            }
            try checkAssertion(assertion, client: client, selector: selector, segment: segment, now: now)
            return .certificate
        }
    }

    /// `invalid_client`, answered 401 as Microsoft Entra ID does.
    static func invalidClient(_ code: Int, _ description: String) -> EmulatorOAuthError {
        EmulatorOAuthError(status: 401, "invalid_client", code, description)
    }

    private func checkSecret(_ secret: String, client: MSALEmulator.Client) throws(EmulatorOAuthError) {
        // Digests first, so that the comparison takes the same time whatever the lengths.
        let presented = (try? MessageDigest.sha256(Array(secret.utf8))) ?? []
        var matched = false
        for case .secret(let registered) in client.credentials {
            let expected = (try? MessageDigest.sha256(Array(registered.utf8))) ?? [0]
            if MessageDigest.constantTimeEquals(presented, expected) { matched = true }
        }
        guard matched else {
            throw Self.invalidClient(
                7000215,
                "Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '\(client.clientID)'."
            )
        }
    }

    private func checkAssertion(
        _ assertion: String, client: MSALEmulator.Client, selector: TenantSelector, segment: Substring, now: Date
    ) throws(EmulatorOAuthError) {
        let verifiers = assertionVerifiers[client.clientID] ?? []
        func malformed(_ error: JOSEError) -> EmulatorOAuthError {
            Self.invalidClient(50027, "Invalid JWT token: the client assertion is malformed (\(error.message)).")
        }
        let thumbprint: (sha256: [UInt8]?, sha1: [UInt8]?)
        do {
            thumbprint = try ClientAssertionVerifier.thumbprint(of: assertion)
        } catch {
            throw malformed(error)
        }
        guard let verifier = verifiers.first(where: { $0.isNamed(by: thumbprint) }) else {
            throw Self.invalidClient(
                700027, "The certificate used to sign the client assertion is not registered on application '\(client.clientID)'.")
        }
        let jwt: JWT
        do {
            jwt = try verifier.verify(assertion)
        } catch {
            guard error.code != .invalidSignature else {
                throw Self.invalidClient(700027, "Client assertion failed signature validation.")
            }
            throw malformed(error)
        }
        let claims = jwt.claims.root
        func text(_ name: String) -> String? { claims[name]?.string }
        guard text("iss") == client.clientID, text("sub") == client.clientID else {
            throw Self.invalidClient(700021, "Client assertion application identifier doesn't match 'client_id' parameter.")
        }
        let audiences: Set<String> = [
            "\(origin)/\(segment)/oauth2/v2.0/token".lowercased(),
            "\(origin)/\(selector.pathSegment)/oauth2/v2.0/token".lowercased(),
        ]
        guard let audience = text("aud"), audiences.contains(audience.lowercased()) else {
            throw Self.invalidClient(50012, "Client assertion audience claim does not match Realm issuer (the token endpoint).")
        }
        guard let expiry = claims["exp"]?.double else {
            throw Self.invalidClient(50027, "Invalid JWT token: the client assertion has no numeric 'exp' claim.")
        }
        let notBefore = claims["nbf"]?.double
        if claims["nbf"] != nil, notBefore == nil {
            throw Self.invalidClient(50027, "Invalid JWT token: the client assertion's 'nbf' claim is not a number.")
        }
        let current = now.timeIntervalSince1970
        guard expiry + Self.assertionClockSkew > current, (notBefore ?? current) - Self.assertionClockSkew <= current else {
            throw Self.invalidClient(700024, "Client assertion is not within its valid time range.")
        }
        guard let jwtID = text("jti"), !jwtID.isEmpty, jwtID.utf8.count <= 256 else {
            throw Self.invalidClient(50027, "Invalid JWT token: the client assertion has no 'jti' claim (or one over 256 bytes).")
        }
        let digest = (try? MessageDigest.sha256(Array(assertion.utf8))) ?? []
        let key = "\(client.clientID)\u{0}\(jwtID)"
        let reuse = client.acceptsReusedAssertions
        let refused: Bool = state.withLock { state in
            if let seen = state.clientAssertions[key], seen.expiresAt > now {
                // The same assertion again is MSAL's reuse; a new assertion with an old jti is a replay.
                return !(reuse && seen.digest == digest)
            }
            state.prune(now: now)
            state.clientAssertions[key] = (Date(timeIntervalSince1970: expiry + Self.assertionClockSkew), digest)
            return false
        }
        guard !refused else {
            throw Self.invalidClient(50012, "The client assertion's 'jti' was already used; each assertion needs a new one.")
        }
    }
}
