import Foundation
import MSALJOSE

extension EmulatorCore {
    /// How long a DPoP proof's `jti` is remembered (and a proof accepted after its `iat`), in seconds.
    static let dpopProofWindow: Int64 = 300

    /// The DPoP proof of a request (RFC 9449 §4.3), checked for its method and URL on the emulator's
    /// origin, with the emulator's nonce when it requires one and a `jti` not seen before; `nil`
    /// without a `DPoP` header. At the resource, `accessToken` is the token the proof must name (`ath`).
    ///
    /// - Throws: `use_dpop_nonce` (with the nonce in `DPoP-Nonce`) for a proof without the current
    ///   nonce, `invalid_dpop_proof` for any other fault; `invalid_token`-shaped errors are the
    ///   resource's to make from these.
    func dpopProof(_ request: EmulatorHTTPRequest, accessToken: String? = nil) throws(EmulatorOAuthError) -> DPoPProofVerifier.Proof? {
        let values = request.headers.filter { $0.name.lowercased() == "dpop" }
        guard let value = values.first?.value else { return nil }
        guard values.count == 1 else { throw .invalidDPoPProof("The request carries more than one DPoP header.") }
        let now = self.now()
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        let proof: DPoPProofVerifier.Proof
        do {
            proof = try DPoPProofVerifier(maximumAge: Self.dpopProofWindow).verify(
                value, method: request.method, targetURI: origin + request.path, accessToken: accessToken, nonce: nil, now: seconds)
        } catch {
            throw .invalidDPoPProof("The DPoP proof is invalid: \(error.message)")
        }
        if let required = state.withLock({ $0.dpopNonce }), proof.nonce != required {
            var error = EmulatorOAuthError(
                "use_dpop_nonce", 9_002_351, "The authorization server requires a nonce in the DPoP proof: use the one in DPoP-Nonce.")
            error.headers = [("DPoP-Nonce", required)]
            throw error
        }
        let replayed = state.withLock { state -> Bool in
            state.prune(now: now)
            if let seen = state.dpopProofIDs[proof.jti], seen > now { return true }
            state.dpopProofIDs[proof.jti] = now.addingTimeInterval(TimeInterval(2 * Self.dpopProofWindow))
            return false
        }
        if replayed { throw .invalidDPoPProof("The DPoP proof's jti was used before.") }
        return proof
    }

    /// Checks that a grant bound to the DPoP key `boundTo` is redeemed with a proof of that key.
    static func checkBinding(_ boundTo: String?, proof: DPoPProofVerifier.Proof?, what: String) throws(EmulatorOAuthError) {
        guard let boundTo else { return }
        guard let proof else { throw .invalidDPoPProof("The \(what) is bound to a DPoP key; the request carries no DPoP proof.") }
        guard proof.thumbprint == boundTo else {
            throw .invalidGrant(9_002_352, "The \(what) is bound to another DPoP key than the one this proof was signed with.")
        }
    }
}

extension EmulatorOAuthError {
    /// HTTP 400 `invalid_dpop_proof` (RFC 9449 §5).
    static func invalidDPoPProof(_ description: String) -> EmulatorOAuthError {
        EmulatorOAuthError("invalid_dpop_proof", 9_002_350, description)
    }
}
