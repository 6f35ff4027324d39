import Foundation

/// Everything the emulator remembers between requests; kept behind one lock in ``EmulatorCore``.
struct EmulatorState: Sendable {
    var lifetimes: MSALEmulator.Lifetimes
    /// Seconds added to the system clock (``MSALEmulator/advanceClock(by:)``).
    var clockOffset: TimeInterval = 0
    var codes: [String: AuthorizationCodeGrant] = [:]
    var refreshTokens: [String: RefreshTokenGrant] = [:]
    /// By device code.
    var deviceCodes: [String: DeviceCodeGrant] = [:]
    /// User code → device code.
    var userCodes: [String: String] = [:]
    /// Browser session id (cookie) → the signed-in user's home object id.
    var sessions: [String: String] = [:]
    var faults: [(id: Int, fault: MSALEmulator.Fault)] = []
    var nextFaultID = 1
    var log: [MSALEmulator.RequestRecord] = []
    /// Access tokens issued and not yet expired: `uti` → (username lower-cased, expiry).
    var accessTokens: [String: (username: String, expiresAt: Date)] = [:]
    /// The `uti` of access tokens the protected resource refuses.
    var revokedAccessTokens: Set<String> = []
    /// Client assertions seen and not yet expired: client id + NUL + `jti` → (expiry, SHA-256 of the
    /// assertion), to refuse a `jti` used again.
    var clientAssertions: [String: (expiresAt: Date, digest: [UInt8])] = [:]
    /// The Azure Arc challenges issued and not yet answered, oldest first: the SHA-256 of each
    /// secret and the key file it was written to.
    var arcChallenges: [(digest: [UInt8], path: String)] = []
    /// The nonce DPoP proofs must carry (``MSALEmulator/requireDPoPNonce(_:)``); `nil`: none required.
    var dpopNonce: String?
    /// The `jti` of DPoP proofs seen, with when each may be forgotten.
    var dpopProofIDs: [String: Date] = [:]

    /// Most unanswered Arc challenges remembered; older ones are forgotten (and refused).
    static let maximumArcChallenges = 1024

    /// Most request records kept; older ones are dropped.
    static let maximumLogEntries = 100_000
    /// Above this many remembered grants of one kind, expired ones are forgotten.
    static let pruneThreshold = 20_000

    init(lifetimes: MSALEmulator.Lifetimes) {
        self.lifetimes = lifetimes
    }

    mutating func append(_ record: MSALEmulator.RequestRecord) {
        if log.count >= Self.maximumLogEntries { log.removeFirst(log.count - Self.maximumLogEntries + 1) }
        log.append(record)
    }

    /// Forgets expired codes, refresh tokens and device codes once there are many.
    mutating func prune(now: Date) {
        if codes.count > Self.pruneThreshold { codes = codes.filter { $0.value.expiresAt > now } }
        if refreshTokens.count > Self.pruneThreshold {
            refreshTokens = refreshTokens.filter { $0.value.expiresAt > now && $0.value.status == .active }
        }
        if accessTokens.count > Self.pruneThreshold {
            accessTokens = accessTokens.filter { $0.value.expiresAt > now }
            revokedAccessTokens = revokedAccessTokens.filter { accessTokens[$0] != nil }
        }
        if dpopProofIDs.count > Self.pruneThreshold {
            dpopProofIDs = dpopProofIDs.filter { $0.value > now }
        }
        if clientAssertions.count > Self.pruneThreshold {
            clientAssertions = clientAssertions.filter { $0.value.expiresAt > now }
        }
        if deviceCodes.count > Self.pruneThreshold {
            deviceCodes = deviceCodes.filter { $0.value.expiresAt > now }
            userCodes = userCodes.filter { deviceCodes[$0.value] != nil }
        }
    }

    /// The faults matching a request, consumed: the total delay of matching delay faults and the first other answer.
    mutating func takeFaults(
        endpoint: MSALEmulator.Endpoint, grantType: MSALEmulator.GrantType?, clientID: String?, username: String?
    ) -> (delay: Double, response: MSALEmulator.Fault.Response?) {
        var delay = 0.0
        var answer: MSALEmulator.Fault.Response?
        var index = 0
        while index < faults.count {
            let fault = faults[index].fault
            let matches =
                fault.endpoint == endpoint
                && (fault.grantType == nil || fault.grantType == grantType)
                && (fault.clientID == nil || fault.clientID == clientID)
                && (fault.username == nil || fault.username?.lowercased() == username?.lowercased())
            var consumed = false
            if matches {
                if case .delay(let seconds) = fault.response {
                    delay += max(0, seconds)
                    consumed = true
                } else if answer == nil {
                    answer = fault.response
                    consumed = true
                }
            }
            if consumed, let times = fault.times {
                if times <= 1 {
                    faults.remove(at: index)
                    continue
                }
                faults[index].fault.times = times - 1
            }
            index += 1
        }
        return (delay, answer)
    }
}
