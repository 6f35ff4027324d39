extension MSALEmulator {
    /// Makes every DPoP proof — at the token endpoint and at the protected resource — carry a nonce
    /// (RFC 9449 §8–9): a proof without the current one is answered `use_dpop_nonce` with the nonce
    /// in `DPoP-Nonce`. Each call with `true` starts a new nonce (the old one is refused from then
    /// on, as a server rotating its nonces does); `false` stops asking.
    ///
    /// The emulator always checks the proofs it is sent: signature by the proof's own key, `typ`,
    /// `htm`/`htu` of the request, `iat` within five minutes, a `jti` not seen before, and at the
    /// resource the token's `ath` and `cnf.jkt`.
    ///
    /// - Returns: The nonce proofs must now carry; `nil` when `required` is `false`.
    @discardableResult
    public func requireDPoPNonce(_ required: Bool) -> String? {
        let nonce = required ? EmulatorCore.randomToken() : nil
        core.state.withLock { $0.dpopNonce = nonce }
        return nonce
    }
}
