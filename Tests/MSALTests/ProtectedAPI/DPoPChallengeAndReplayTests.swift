import Foundation
import MSALJOSE
import Testing

@testable import MSAL

/// The protected-API side of DPoP (RFC 9449) around the proof check: the replay cache that refuses
/// a proof's second use, and the answers (`WWW-Authenticate`, `DPoP-Nonce`) ``MSALBearerChallenge``
/// gives for the DPoP refusals — read back by the client's own challenge parser.
@Suite("DPoP on a protected API: the replay cache and the DPoP challenges")
struct DPoPChallengeAndReplayTests {
    /// The `algs` a DPoP challenge advertises.
    static let algs = "ES256 ES384 RS256 RS384 RS512 PS256 PS384 PS512"

    static func failure(_ code: MSALInternalError, headers: [String: String]? = nil) -> MSALFailure {
        var failure = MSALFailure(.internal, internalCode: code, message: "refused for the test")
        failure.httpHeaders = headers
        return failure
    }
}

// MARK: - Replay cache

extension DPoPChallengeAndReplayTests {
    @Suite("DPoPReplayCache: each proof accepted once within its lifetime, in bounded memory")
    struct ReplayCache {
        @Test("A proof id is accepted once; again before its expiry it is refused, from its expiry on it is accepted anew")
        func replayWithinLifetime() {
            let cache = DPoPReplayCache(capacity: 16)
            #expect(cache.accept("jkt jti-1", expiresAt: 100, now: 0))
            #expect(!cache.accept("jkt jti-1", expiresAt: 100, now: 0), "the same instant")
            #expect(!cache.accept("jkt jti-1", expiresAt: 200, now: 50), "later, with a later expiry")
            #expect(!cache.accept("jkt jti-1", expiresAt: 100, now: 99), "one second before its expiry")
            #expect(cache.accept("jkt jti-1", expiresAt: 200, now: 100), "at its expiry")
            #expect(!cache.accept("jkt jti-1", expiresAt: 200, now: 150), "remembered again, until 200")
            #expect(cache.accept("jkt jti-1", expiresAt: 300, now: 250))
            #expect(cache.count == 1)
        }

        @Test("A refused replay does not extend the remembered expiry")
        func refusalDoesNotExtend() {
            let cache = DPoPReplayCache(capacity: 16)
            #expect(cache.accept("a", expiresAt: 100, now: 0))
            #expect(!cache.accept("a", expiresAt: 10_000, now: 50))
            #expect(cache.accept("a", expiresAt: 200, now: 100), "still forgotten at the first expiry")
        }

        @Test("Ids are compared whole: other jti, other key, a prefix or another case are different proofs")
        func distinctIDs() {
            let cache = DPoPReplayCache(capacity: 16)
            for id in ["jkt-1 jti-1", "jkt-1 jti-2", "jkt-2 jti-1", "jkt-1 jti-", "JKT-1 JTI-1", "jkt-1 jti-1 ", ""] {
                #expect(cache.accept(id, expiresAt: 100, now: 0), "\(id.debugDescription)")
            }
            #expect(cache.count == 7)
            #expect(!cache.accept("jkt-1 jti-1", expiresAt: 100, now: 1))
            #expect(!cache.accept("", expiresAt: 100, now: 1))
        }

        @Test("count never exceeds the capacity; a capacity below 1 counts as 1")
        func capacityBound() {
            for capacity in [1, 2, 3, 10, 64] {
                let cache = DPoPReplayCache(capacity: capacity)
                #expect(cache.capacity == capacity)
                for index in 0..<(capacity * 5) {
                    #expect(cache.accept("id-\(index)", expiresAt: 1_000, now: Int64(index % 7)))
                    #expect(cache.count <= capacity, "capacity \(capacity), after \(index + 1)")
                }
                #expect(cache.count == capacity)
            }
            for capacity in [0, -1, Int.min] {
                let cache = DPoPReplayCache(capacity: capacity)
                #expect(cache.capacity == 1)
                #expect(cache.accept("a", expiresAt: 100, now: 0))
                #expect(cache.accept("b", expiresAt: 100, now: 0))
                #expect(cache.count == 1)
                #expect(!cache.accept("b", expiresAt: 100, now: 0), "the one remembered is still refused")
            }
        }

        @Test("Full of live proofs, the oldest is forgotten first: it is accepted again while the newer ones are still refused")
        func oldestForgottenFirst() {
            let cache = DPoPReplayCache(capacity: 3)
            for id in ["a", "b", "c"] { #expect(cache.accept(id, expiresAt: 1_000, now: 0)) }
            #expect(cache.accept("d", expiresAt: 1_000, now: 1), "a new proof is never refused because the cache is full")
            #expect(cache.count == 3)
            for id in ["b", "c", "d"] { #expect(!cache.accept(id, expiresAt: 1_000, now: 2), "\(id) is still remembered") }
            #expect(cache.count == 3, "refusals change nothing")
            #expect(cache.accept("a", expiresAt: 1_000, now: 3), "a, the oldest, was forgotten")
            // Accepting a again made it the newest, and forgot b.
            for id in ["c", "d", "a"] { #expect(!cache.accept(id, expiresAt: 1_000, now: 4), "\(id) is still remembered") }
            #expect(cache.accept("b", expiresAt: 1_000, now: 5))
            #expect(cache.count == 3)
        }

        @Test("Expired proofs are dropped as new ones arrive, and do not count against the capacity once dropped")
        func expiredDropped() {
            let cache = DPoPReplayCache(capacity: 100)
            for index in 0..<50 { #expect(cache.accept("old-\(index)", expiresAt: 10, now: 0)) }
            #expect(cache.count == 50)
            #expect(cache.accept("new", expiresAt: 20, now: 10))
            #expect(cache.count == 1, "the 50 expired proofs were dropped")
            // Each expired one may be accepted again (a new proof with the same id after the old one's lifetime).
            for index in 0..<50 { #expect(cache.accept("old-\(index)", expiresAt: 30, now: 10)) }
            #expect(cache.count == 51)
            #expect(!cache.accept("new", expiresAt: 20, now: 19))
        }

        @Test("Expired proofs make room before a live one is forgotten (proofs accepted in order of expiry)")
        func expiredBeforeLive() {
            let cache = DPoPReplayCache(capacity: 4)
            #expect(cache.accept("short-1", expiresAt: 10, now: 0))
            #expect(cache.accept("short-2", expiresAt: 10, now: 0))
            #expect(cache.accept("long-1", expiresAt: 1_000, now: 0))
            #expect(cache.accept("long-2", expiresAt: 1_000, now: 0))
            #expect(cache.accept("next", expiresAt: 1_010, now: 10))
            #expect(cache.count == 3, "the two expired proofs were dropped, none of the live ones")
            for id in ["long-1", "long-2", "next"] { #expect(!cache.accept(id, expiresAt: 1_000, now: 11), "\(id)") }
        }

        @Test("A live proof is not forgotten while expired ones, accepted after it, still take room (expiries out of order)")
        func liveNotForgottenForExpired() {
            let cache = DPoPReplayCache(capacity: 3)
            #expect(cache.accept("long", expiresAt: 1_000, now: 0))
            #expect(cache.accept("short-1", expiresAt: 10, now: 0))
            #expect(cache.accept("short-2", expiresAt: 10, now: 0))
            #expect(cache.accept("new", expiresAt: 1_020, now: 20))
            #expect(!cache.accept("long", expiresAt: 1_000, now: 20), "the live proof is still refused")
            #expect(cache.count <= 3)
        }

        @Test("Options out of range are clamped: an infinite, NaN or huge proof lifetime cannot overflow the validator's arithmetic")
        func lifetimeClamped() {
            #expect(MSALDPoPValidationOptions(proofLifetime: .infinity).proofLifetime == 300)
            #expect(MSALDPoPValidationOptions(proofLifetime: .nan).proofLifetime == 300)
            #expect(MSALDPoPValidationOptions(proofLifetime: 1e300).proofLifetime == 86_400)
            #expect(MSALDPoPValidationOptions(proofLifetime: -5).proofLifetime == 1)
        }

        @Test("100,000 distinct proofs into a cache of 1,000: bounded, the newest 1,000 remembered, older ones forgotten")
        func manyDistinct() {
            let cache = DPoPReplayCache(capacity: 1_000)
            for index in 0..<100_000 {
                guard cache.accept("jkt \(index)", expiresAt: 1_000_000, now: Int64(index / 1_000)) else {
                    Issue.record("a new proof, \(index), was refused")
                    return
                }
            }
            #expect(cache.count == 1_000)
            let refused = (99_000..<100_000).filter { !cache.accept("jkt \($0)", expiresAt: 1_000_000, now: 100) }
            #expect(refused.count == 1_000, "the newest 1,000 are all remembered")
            #expect(cache.accept("jkt 98999", expiresAt: 1_000_000, now: 100), "the 1,001st newest was forgotten")
            #expect(cache.count == 1_000)
        }

        @Test("100,000 proofs that expire as time passes: only the live ones are kept")
        func manyExpiring() {
            let cache = DPoPReplayCache(capacity: 65_536)
            for index in 0..<100_000 {
                let now = Int64(index / 100)
                #expect(cache.accept("jkt \(index)", expiresAt: now + 5, now: now))
            }
            // At now 999, the proofs accepted at 995 and later (expiring after 999) are live: 5 s × 100.
            #expect(cache.count <= 600)
            #expect(!cache.accept("jkt 99999", expiresAt: 2_000, now: 999))
            #expect(cache.accept("jkt 0", expiresAt: 2_000, now: 999))
        }

        @Test("The same id accepted again after each expiry, 100,000 times, is remembered once")
        func sameIDRepeatedly() {
            let cache = DPoPReplayCache(capacity: 8)
            #expect(cache.accept("long", expiresAt: Int64.max, now: 0))
            for now in Int64(1)...100_000 {
                #expect(cache.accept("again", expiresAt: now + 1, now: now))
                #expect(!cache.accept("again", expiresAt: now + 1, now: now))
            }
            #expect(cache.count == 2)
            #expect(!cache.accept("long", expiresAt: Int64.max, now: 100_001), "the long-lived one is still remembered")
        }

        @Test("Concurrent accepts of one id: exactly one succeeds")
        func concurrentAccepts() async {
            let cache = DPoPReplayCache(capacity: 1_024)
            for round in 0..<20 {
                let accepted = await withTaskGroup(of: Bool.self) { group in
                    for _ in 0..<64 { group.addTask { cache.accept("jkt race-\(round)", expiresAt: 100, now: 0) } }
                    var count = 0
                    for await result in group where result { count += 1 }
                    return count
                }
                #expect(accepted == 1, "round \(round)")
            }
            #expect(cache.count == 20)
        }
    }
}

// MARK: - Challenges

extension DPoPChallengeAndReplayTests {
    @Suite("MSALBearerChallenge for the DPoP refusals (RFC 9449 §7.1) and the existing ones")
    struct Challenges {
        @Test("dpopProofInvalid: 401, invalid_dpop_proof, a DPoP challenge advertising the accepted algorithms")
        func proofInvalid() throws {
            let challenge = MSALBearerChallenge(for: DPoPChallengeAndReplayTests.failure(.dpopProofInvalid))
            #expect(challenge.status == 401)
            #expect(challenge.error == "invalid_dpop_proof")
            #expect(challenge.dpopNonce == nil)
            let header = try #require(challenge.headerValue)
            #expect(header.hasPrefix("DPoP "))
            #expect(header.contains(#"algs=""#))
            #expect(header.contains(#"error="invalid_dpop_proof""#))
            #expect(
                header
                    == #"DPoP algs="\#(DPoPChallengeAndReplayTests.algs)", error="invalid_dpop_proof", error_description="The DPoP proof is not valid""#
            )
        }

        @Test("dpopNonceRequired: 401, use_dpop_nonce, a DPoP challenge, and the nonce from the failure's DPoP-Nonce header")
        func nonceRequired() throws {
            let failure = DPoPChallengeAndReplayTests.failure(.dpopNonceRequired, headers: ["DPoP-Nonce": "n-1"])
            let challenge = MSALBearerChallenge(for: failure)
            #expect(challenge.status == 401)
            #expect(challenge.error == "use_dpop_nonce")
            #expect(challenge.dpopNonce == "n-1")
            let header = try #require(challenge.headerValue)
            #expect(header.hasPrefix("DPoP "))
            #expect(header.contains(#"algs="\#(DPoPChallengeAndReplayTests.algs)""#))
            #expect(header.contains(#"error="use_dpop_nonce""#))
            #expect(!header.contains("n-1"), "the nonce travels in its own header, not in the challenge")
            #expect(challenge == MSALBearerChallenge(status: 401, error: "use_dpop_nonce", headerValue: header, dpopNonce: "n-1"))
        }

        @Test("dpopNonceRequired without a DPoP-Nonce header: still use_dpop_nonce, with no nonce")
        func nonceRequiredWithoutHeader() {
            for headers in [nil, [:], ["Other": "x"]] as [[String: String]?] {
                let challenge = MSALBearerChallenge(for: DPoPChallengeAndReplayTests.failure(.dpopNonceRequired, headers: headers))
                #expect(challenge.status == 401 && challenge.error == "use_dpop_nonce")
                #expect(challenge.dpopNonce == nil, "\(String(describing: headers))")
            }
        }

        @Test("No DPoP-Nonce is answered for the other refusals, even when the failure carries one")
        func noNonceElsewhere() {
            for code: MSALInternalError in [.dpopProofInvalid, .accessTokenSchemeMismatch, .accessTokenMissing, .insufficientPermission] {
                let challenge = MSALBearerChallenge(for: DPoPChallengeAndReplayTests.failure(code, headers: ["DPoP-Nonce": "n-1"]))
                #expect(challenge.dpopNonce == nil, "\(code)")
            }
        }

        @Test("accessTokenSchemeMismatch: 401 invalid_token with a Bearer challenge")
        func schemeMismatch() throws {
            let challenge = MSALBearerChallenge(for: DPoPChallengeAndReplayTests.failure(.accessTokenSchemeMismatch))
            #expect(challenge.status == 401)
            #expect(challenge.error == "invalid_token")
            #expect(challenge.dpopNonce == nil)
            let header = try #require(challenge.headerValue)
            #expect(header.hasPrefix(#"Bearer error="invalid_token""#))
            #expect(!header.contains("algs="))
        }

        @Test("The realm is kept, first, in every challenge: DPoP and Bearer alike, and cleaned of quotes and line breaks")
        func realmKept() throws {
            for code: MSALInternalError in [.dpopProofInvalid, .dpopNonceRequired, .accessTokenSchemeMismatch, .accessTokenMissing] {
                let header = try #require(MSALBearerChallenge(for: DPoPChallengeAndReplayTests.failure(code), realm: "orders").headerValue)
                let scheme = code == .dpopProofInvalid || code == .dpopNonceRequired ? "DPoP" : "Bearer"
                #expect(header.hasPrefix(#"\#(scheme) realm="orders""#), "\(code): \(header)")
            }
            let header = try #require(
                MSALBearerChallenge(for: DPoPChallengeAndReplayTests.failure(.dpopProofInvalid), realm: "or\"ders\r\n\\").headerValue)
            #expect(header.hasPrefix(#"DPoP realm="orders", algs=""#), "\(header)")
        }

        @Test("The existing answers are unchanged: no token → 401 Bearer, no permission → 403, network failure → 503")
        func existingCases() {
            #expect(
                MSALBearerChallenge(for: DPoPChallengeAndReplayTests.failure(.accessTokenMissing))
                    == MSALBearerChallenge(status: 401, error: nil, headerValue: "Bearer"))
            #expect(
                MSALBearerChallenge(for: DPoPChallengeAndReplayTests.failure(.accessTokenMissing), realm: "orders")
                    == MSALBearerChallenge(status: 401, error: nil, headerValue: #"Bearer realm="orders""#))

            var permission = DPoPChallengeAndReplayTests.failure(.insufficientPermission)
            permission.declinedScopes = ["Orders.Delete"]
            let forbidden = MSALBearerChallenge(for: permission)
            #expect(forbidden.status == 403 && forbidden.error == "insufficient_scope" && forbidden.dpopNonce == nil)
            #expect(
                forbidden.headerValue
                    == #"Bearer error="insufficient_scope", error_description="The access token does not grant the required permission", scope="Orders.Delete""#
            )

            let expired = MSALBearerChallenge(for: DPoPChallengeAndReplayTests.failure(.idTokenExpired))
            #expect(expired.status == 401 && expired.error == "invalid_token")
            #expect(expired.headerValue == #"Bearer error="invalid_token", error_description="The access token has expired""#)

            for failure: any Error in [
                DPoPChallengeAndReplayTests.failure(.networkFailure), DPoPChallengeAndReplayTests.failure(.networkTimeout),
                MSALFailure(.internal, message: "no internal code"), CancellationError(), URLError(.timedOut),
            ] {
                #expect(MSALBearerChallenge(for: failure) == MSALBearerChallenge(status: 503, error: nil, headerValue: nil), "\(failure)")
            }
        }

        @Test("The DPoP codes are new, distinct, and in the protected-API range -52003…-52005")
        func codes() {
            #expect(MSALInternalError.accessTokenSchemeMismatch.rawValue == -52003)
            #expect(MSALInternalError.dpopProofInvalid.rawValue == -52004)
            #expect(MSALInternalError.dpopNonceRequired.rawValue == -52005)
            let all = MSALInternalError.allCases.map(\.rawValue)
            #expect(Set(all).count == all.count, "no code is used twice")
        }

        @Test("The algs advertised are exactly the algorithms the proof verifier accepts")
        func advertisedAlgorithms() throws {
            let header = try #require(MSALBearerChallenge(for: DPoPChallengeAndReplayTests.failure(.dpopProofInvalid)).headerValue)
            let algs = try #require(DPoPChallenge.challenges(header).first?.parameters["algs"])
            #expect(Set(algs.split(separator: " ").map(String.init)) == Set(JWSAlgorithm.allCases.map(\.rawValue)))
        }
    }
}

// MARK: - Round trip with the client

extension DPoPChallengeAndReplayTests {
    @Suite("The answers read back by the client: DPoPChallenge and MSALResult.dpopNonce")
    struct RoundTrip {
        @Test("use_dpop_nonce: the client reads a DPoP challenge asking for a nonce, and takes the DPoP-Nonce header's value")
        func nonceRoundTrip() throws {
            let failure = DPoPChallengeAndReplayTests.failure(.dpopNonceRequired, headers: ["DPoP-Nonce": "n-1"])
            let challenge = MSALBearerChallenge(for: failure, realm: "orders")
            let header = try #require(challenge.headerValue)
            #expect(
                DPoPChallenge.challenges(header) == [
                    DPoPChallenge.Challenge(
                        scheme: "DPoP",
                        parameters: [
                            "realm": "orders", "algs": DPoPChallengeAndReplayTests.algs, "error": "use_dpop_nonce",
                            "error_description": "The DPoP proof must carry the nonce given",
                        ])
                ])
            #expect(DPoPChallenge.asksForNonce(header))
            #expect(MSALResult.dpopNonce(wwwAuthenticate: header, dpopNonce: challenge.dpopNonce) == "n-1")
        }

        @Test("A nonce as servers mint them (base64url, with dots and tildes) survives the round trip")
        func realisticNonce() throws {
            let nonce = "eyJ7S_zG.9qQ-2xU~AAz!#$%&'()*+,/:;<=>?@[]^`{|}"
            let challenge = MSALBearerChallenge(
                for: DPoPChallengeAndReplayTests.failure(.dpopNonceRequired, headers: ["DPoP-Nonce": nonce]))
            #expect(challenge.dpopNonce == nonce)
            #expect(MSALResult.dpopNonce(wwwAuthenticate: challenge.headerValue, dpopNonce: challenge.dpopNonce) == nonce)
        }

        @Test("invalid_dpop_proof is read as a DPoP challenge that does not ask for a nonce")
        func invalidProofRoundTrip() throws {
            let challenge = MSALBearerChallenge(
                for: DPoPChallengeAndReplayTests.failure(.dpopProofInvalid, headers: ["DPoP-Nonce": "n-1"]))
            let header = try #require(challenge.headerValue)
            let parsed = DPoPChallenge.challenges(header)
            #expect(parsed.count == 1)
            #expect(parsed.first?.scheme == "DPoP")
            #expect(parsed.first?.parameters["error"] == "invalid_dpop_proof")
            #expect(parsed.first?.parameters["algs"] == DPoPChallengeAndReplayTests.algs)
            #expect(!DPoPChallenge.asksForNonce(header))
            #expect(MSALResult.dpopNonce(wwwAuthenticate: header, dpopNonce: "n-1") == nil)
        }

        @Test("The Bearer answers are read as Bearer challenges, which never ask for a DPoP nonce")
        func bearerRoundTrip() throws {
            for code: MSALInternalError in [.accessTokenSchemeMismatch, .accessTokenMissing, .insufficientPermission] {
                let header = try #require(MSALBearerChallenge(for: DPoPChallengeAndReplayTests.failure(code), realm: "orders").headerValue)
                let parsed = DPoPChallenge.challenges(header)
                #expect(parsed.map(\.scheme) == ["Bearer"], "\(code)")
                #expect(parsed.first?.parameters["realm"] == "orders")
                #expect(!DPoPChallenge.asksForNonce(header))
                #expect(MSALResult.dpopNonce(wwwAuthenticate: header, dpopNonce: "n-1") == nil)
            }
            let mismatch = MSALBearerChallenge(for: DPoPChallengeAndReplayTests.failure(.accessTokenSchemeMismatch)).headerValue ?? ""
            #expect(DPoPChallenge.challenges(mismatch).first?.parameters["error"] == "invalid_token")
        }

        @Test("A client proof made with the nonce it was given passes the verifier that asked for it; without it, nonce_mismatch")
        func clientProofWithNonce() throws {
            let key = try ProofKey.generate(.dpop)
            let failure = DPoPChallengeAndReplayTests.failure(.dpopNonceRequired, headers: ["DPoP-Nonce": "n-7"])
            let challenge = MSALBearerChallenge(for: failure)
            let nonce = try #require(MSALResult.dpopNonce(wwwAuthenticate: challenge.headerValue, dpopNonce: challenge.dpopNonce))
            let url = try #require(URL(string: "https://API.Example.TEST:443/orders/42?page=2#top"))
            let now: Int64 = 1_700_000_000
            let verifier = DPoPProofVerifier()
            let withNonce = try DPoPProof.make(key: key, method: "GET", url: url, accessToken: "at", nonce: nonce, issuedAt: now)
            let proof = try verifier.verify(
                withNonce, method: "GET", targetURI: "https://api.example.test/orders/42", accessToken: "at", nonce: "n-7", now: now)
            #expect(proof.nonce == "n-7")
            #expect(proof.thumbprint == key.thumbprint)
            #expect(proof.issuedAt == now && !proof.jti.isEmpty)
            let without = try DPoPProof.make(key: key, method: "GET", url: url, accessToken: "at", issuedAt: now)
            let refusal = #expect(throws: JOSEError.self) {
                try verifier.verify(
                    without, method: "GET", targetURI: "https://api.example.test/orders/42", accessToken: "at", nonce: "n-7", now: now)
            }
            #expect(refusal?.code == .nonceMismatch)
        }

        @Test("Two client proofs for the same request have different jti, so the replay cache accepts both and refuses each again")
        func clientProofsAndReplay() throws {
            let key = try ProofKey.generate(.dpop)
            let url = try #require(URL(string: "https://api.example.test/orders"))
            let now: Int64 = 1_700_000_000
            let cache = DPoPReplayCache(capacity: 16)
            var ids: [String] = []
            for _ in 0..<2 {
                let text = try DPoPProof.make(key: key, method: "POST", url: url, accessToken: "at", issuedAt: now)
                let proof = try DPoPProofVerifier().verify(
                    text, method: "POST", targetURI: url.absoluteString, accessToken: "at", nonce: nil, now: now)
                ids.append(proof.thumbprint + " " + proof.jti)
            }
            #expect(ids[0] != ids[1])
            for id in ids { #expect(cache.accept(id, expiresAt: now + 360, now: now)) }
            for id in ids { #expect(!cache.accept(id, expiresAt: now + 360, now: now + 1)) }
        }
    }
}
