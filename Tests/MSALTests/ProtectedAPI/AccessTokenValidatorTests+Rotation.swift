import Foundation
import MSALJOSE
import Testing

@testable import MSAL

/// Concurrent callers across a key rotation (issue 39, finding 9): the requests that arrive while
/// one of them fetches the rotated set again wait for that fetch instead of being refused, and the
/// once-a-minute limit still holds for `kid`s that stay unknown.
extension AccessTokenValidatorTests {
    /// Validates `tokens` all at once; the refusals, in order.
    static func validateConcurrently(_ validator: MSALAccessTokenValidator, _ tokens: [String]) async -> [MSALFailure?] {
        await withTaskGroup(of: (Int, MSALFailure?).self) { group in
            for (index, token) in tokens.enumerated() {
                group.addTask {
                    do {
                        _ = try await validator.validate(token)
                        return (index, nil)
                    } catch let error as MSALFailure {
                        return (index, error)
                    } catch {
                        return (index, MSALFailure(.internal, internalCode: .internalErrorUnexpected, message: "\(error)"))
                    }
                }
            }
            var refusals = [MSALFailure?](repeating: nil, count: tokens.count)
            for await (index, refusal) in group { refusals[index] = refusal }
            return refusals
        }
    }

    @Test(
        "After a rotation, concurrent callers of the new key share one refetch and are all accepted (2 and 40 callers, a key set that takes 300 ms)",
        arguments: [2, 40])
    func concurrentCallersAcrossRotation(callers: Int) async throws {
        let setup = try Self.setup()
        _ = try await setup.validator.validate(try Self.token(setup.clock))
        #expect(setup.provider.keyFetches == 1)

        let rotated = try JWSSigningKey.generateRSA(keyID: "key-2")
        setup.provider.publish([rotated, Self.signer])
        setup.provider.delayKeys(.milliseconds(300))
        // Distinct tokens (each a different subject), so no caller is answered by the validated-token memory.
        let tokens = try (0..<callers).map { index in
            try Self.token(setup.clock, key: rotated) { $0["sub"] = .string("caller-\(index)") }
        }
        let refusals = await Self.validateConcurrently(setup.validator, tokens)
        let refused = refusals.compactMap { $0 }
        #expect(refused.count == 0, "first refusal: \(String(describing: refused.first))")
        #expect(setup.provider.keyFetches == 2, "one refetch served every caller")

        // A kid that stays unknown is still refused without a fetch within the minute, even by many callers at once.
        let forger = try JWSSigningKey.generateRSA(keyID: "forged")
        let forged = try (0..<callers).map { index in
            try Self.token(setup.clock, key: forger) { $0["sub"] = .string("forger-\(index)") }
        }
        let forgedRefusals = await Self.validateConcurrently(setup.validator, forged)
        #expect(forgedRefusals.allSatisfy { $0?.internalCode == .jwtSigningKeyNotFound })
        #expect(setup.provider.keyFetches == 2)
        #expect(MSALBearerChallenge(for: forgedRefusals[0]!).error == "invalid_token")
    }

    @Test("A caller whose set was replaced by another caller's refetch after it read it judges its token with the new set")
    func refetchFinishedBetweenReadAndClaim() async throws {
        let setup = try Self.setup()
        _ = try await setup.validator.validate(try Self.token(setup.clock))
        let rotated = try JWSSigningKey.generateRSA(keyID: "key-2")
        setup.provider.publish([rotated, Self.signer])
        // The first caller's refetch is over before the others start; the limit forbids them another one.
        _ = try await setup.validator.validate(try Self.token(setup.clock, key: rotated))
        #expect(setup.provider.keyFetches == 2)
        let later = try (0..<8).map { index in try Self.token(setup.clock, key: rotated) { $0["sub"] = .string("later-\(index)") } }
        #expect(await Self.validateConcurrently(setup.validator, later).allSatisfy { $0 == nil })
        #expect(setup.provider.keyFetches == 2)
    }

    @Test("Callers that join a refetch that fails get the fetch's error (503), not a token error; the keys in memory stay")
    func joinedRefetchFails() async throws {
        let setup = try Self.setup()
        _ = try await setup.validator.validate(try Self.token(setup.clock))
        let rotated = try JWSSigningKey.generateRSA(keyID: "key-2")
        setup.provider.publish([rotated, Self.signer])
        setup.provider.delayKeys(.milliseconds(500))
        setup.provider.failKeys(true)
        let tokens = try (0..<10).map { index in try Self.token(setup.clock, key: rotated) { $0["sub"] = .string("caller-\(index)") } }
        let refusals = await Self.validateConcurrently(setup.validator, tokens)
        #expect(refusals.allSatisfy { $0 != nil })
        #expect(refusals.compactMap { $0 }.allSatisfy { MSALBearerChallenge(for: $0).status == 503 })
        // One refetch, shared: its 503 is sent again once by the pipeline, as any 5xx.
        #expect(setup.provider.keyFetches == 3, "one refetch, shared")
        _ = try await setup.validator.validate(try Self.token(setup.clock))
    }
}
