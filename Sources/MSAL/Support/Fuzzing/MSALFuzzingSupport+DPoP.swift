// Compiled only with the package trait TestEntryPoints, which FuzzTesting enables (see Package.swift).
#if MSAL_TEST_ENTRY_POINTS
import MSALJOSE

@_spi(Fuzzing) extension MSALFuzzingSupport {
    /// The challenges of a `WWW-Authenticate` header as the client reads them (`DPoPChallenge`):
    /// each scheme and its parameters (names in lower case).
    public static func dpopChallenges(_ header: String) -> [(scheme: String, parameters: [String: String])] {
        DPoPChallenge.challenges(header).map { ($0.scheme, $0.parameters) }
    }

    /// Whether the header is a DPoP nonce challenge (`DPoPChallenge.asksForNonce`).
    public static func dpopAsksForNonce(_ header: String) -> Bool {
        DPoPChallenge.asksForNonce(header)
    }

    /// What `DPoPProofVerifier` accepts of `proof` for one request: the key's thumbprint, `jti`
    /// and `iat`.
    ///
    /// - Parameter rememberingKeys: check it through a new `DPoPProofKeys` store twice, the second
    ///   time answered from the store's key when the first remembered one, and return the second
    ///   answer (what a validator gives a proof whose header it has seen).
    /// - Throws: ``JOSEError`` naming the failed check.
    public static func verifyDPoPProof(
        _ proof: String, method: String, targetURI: String, accessToken: String?, nonce: String?, now: Int64,
        rememberingKeys: Bool = false
    ) throws(JOSEError) -> (thumbprint: String, jti: String, issuedAt: Int64) {
        let keys = rememberingKeys ? DPoPProofKeys() : nil
        if let keys {
            _ = try? DPoPProofVerifier().verify(
                proof, method: method, targetURI: targetURI, accessToken: accessToken, nonce: nonce, now: now, keys: keys)
        }
        let accepted = try DPoPProofVerifier().verify(
            proof, method: method, targetURI: targetURI, accessToken: accessToken, nonce: nonce, now: now, keys: keys)
        return (accepted.thumbprint, accepted.jti, accepted.issuedAt)
    }

    /// `htu` as the verifier compares it (`DPoPProofVerifier.normalized`).
    public static func normalizedTargetURI(_ uri: String) -> String {
        DPoPProofVerifier.normalized(uri)
    }
}
#endif
