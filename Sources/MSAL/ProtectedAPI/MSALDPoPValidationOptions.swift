/// How ``MSALAccessTokenValidator`` checks DPoP requests (RFC 9449 §7): how old a proof may be, how
/// many proofs it remembers so that none is accepted twice, and the nonce the API requires.
public struct MSALDPoPValidationOptions: Sendable {
    /// How long after its `iat` a proof is accepted, in seconds (default 300; 1 to 86,400). A proof
    /// made up to the validator's clock skew (at most 60 seconds) in the future is accepted too.
    public var proofLifetime: Double
    /// How many accepted proofs are remembered against replay (default 65,536); the oldest is
    /// forgotten first when the store is full of proofs still within their lifetime.
    public var replayCacheSize: Int
    /// The nonce proofs must carry (RFC 9449 §9), asked for each request; `nil`, or a closure that
    /// answers `nil`, requires none. An API that rotates its nonce answers the current one; a proof
    /// without it is refused with ``MSALInternalError/dpopNonceRequired``, whose challenge hands the
    /// client the nonce.
    public var nonce: (@Sendable () -> String?)?

    /// Options; the defaults accept proofs up to five minutes old and require no nonce.
    public init(proofLifetime: Double = 300, replayCacheSize: Int = 65_536, nonce: (@Sendable () -> String?)? = nil) {
        // Clamped, so that whole seconds and expiries computed from it cannot overflow.
        self.proofLifetime = proofLifetime.isFinite ? min(max(1, proofLifetime), 86_400) : 300
        self.replayCacheSize = max(1, replayCacheSize)
        self.nonce = nonce
    }
}
