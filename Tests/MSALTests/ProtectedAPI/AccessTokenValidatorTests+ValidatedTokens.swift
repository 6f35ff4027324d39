import Foundation
import MSALJOSE
import MSALJSON
import Testing

@testable import MSAL

/// The validated-token cache: a token that passed every check is accepted again from memory (its
/// signature not checked again) only while it is within its validity, only byte for byte, only
/// while its key is in the set as last fetched, and never when it was refused.
extension AccessTokenValidatorTests {
    @Test("The same token is checked once, then answered from memory; with the cache off, every time")
    func sameTokenFromMemory() async throws {
        for size in [1024, 0] {
            let setup = try Self.setup(validatedTokenCacheSize: size)
            let token = try Self.token(setup.clock)
            for _ in 0..<3 {
                let again = try await setup.validator.validate(authorizationHeader: "Bearer " + token)
                #expect(again.subject == "user-sub" && again.scopes == ["Orders.Read", "Orders.Write"])
                try again.require(scopes: ["Orders.Read"])
            }
            #expect(setup.validator.validatedTokens.hits == (size > 0 ? 2 : 0), "cache size \(size)")
            #expect(setup.validator.validatedTokens.count == (size > 0 ? 1 : 0))
            #expect(setup.provider.keyFetches == 1)
        }
    }

    @Test("A remembered token whose key was withdrawn is refused once the set is fetched again; a kept key's tokens are checked again once")
    func withdrawnKey() async throws {
        let setup = try Self.setup()
        let token = try Self.token(setup.clock)
        _ = try await setup.validator.validate(token)
        _ = try await setup.validator.validate(token)
        #expect(setup.validator.validatedTokens.hits == 1)

        // Rotation keeping key-1: the set is fetched again (a token of key-2), and key-1's token is
        // checked again once against the new fetch, then remembered again.
        let next = try JWSSigningKey.generateRSA(keyID: "key-2")
        setup.provider.publish([Self.signer, next])
        _ = try await setup.validator.validate(try Self.token(setup.clock, key: next))
        #expect(setup.provider.keyFetches == 2)
        _ = try await setup.validator.validate(token)
        #expect(setup.validator.validatedTokens.hits == 1, "checked again after the refetch")
        _ = try await setup.validator.validate(token)
        #expect(setup.validator.validatedTokens.hits == 2)

        // key-1 withdrawn, and the set fetched again a minute later: its remembered token is refused.
        setup.provider.publish([next])
        setup.clock.advance(by: 61)
        let stranger = try Self.token(setup.clock, key: try JWSSigningKey.generateRSA(keyID: "key-3"))
        await #expect(throws: MSALFailure.self) { _ = try await setup.validator.validate(stranger) }
        #expect(setup.provider.keyFetches == 3)
        do {
            _ = try await setup.validator.validate(token)
            Issue.record("a remembered token whose key was withdrawn was accepted")
        } catch let error as MSALFailure {
            #expect(error.internalCode == .jwtSigningKeyNotFound)
            #expect(MSALBearerChallenge(for: error).error == "invalid_token")
        }
        #expect(setup.validator.validatedTokens.hits == 2)
    }

    @Test("A remembered token expires as any other: past exp and the skew it is refused as expired")
    func rememberedTokenExpires() async throws {
        let setup = try Self.setup()
        let token = try Self.token(setup.clock)
        _ = try await setup.validator.validate(token)
        setup.clock.advance(by: 3600 + 299)
        _ = try await setup.validator.validate(token)
        setup.clock.advance(by: 1)
        await #expect(throws: MSALFailure.self) { _ = try await setup.validator.validate(token) }
        do {
            _ = try await setup.validator.validate(token)
        } catch let error as MSALFailure {
            #expect(error.internalCode == .idTokenExpired)
        }
    }

    @Test("Only the same bytes: a tampered copy of a remembered token, and a refused token, are checked (and refused) each time")
    func onlyTheSameBytes() async throws {
        let setup = try Self.setup()
        let token = try Self.token(setup.clock)
        _ = try await setup.validator.validate(token)
        let parts = token.split(separator: ".").map(String.init)
        let forged = try Self.token(setup.clock) { $0["scp"] = .string("Orders.Admin") }.split(separator: ".").map(String.init)
        let tampered = [parts[0], forged[1], parts[2]].joined(separator: ".")
        for _ in 0..<2 {
            do {
                _ = try await setup.validator.validate(tampered)
                Issue.record("a tampered token was accepted")
            } catch let error as MSALFailure {
                #expect(error.internalCode == .jwtInvalidSignature)
            }
        }
        // A token refused for its audience is not remembered: refused again, for the same reason.
        let elsewhere = try Self.token(setup.clock) { $0["aud"] = .string("api://other") }
        for _ in 0..<2 {
            do {
                _ = try await setup.validator.validate(elsewhere)
                Issue.record("a token for another audience was accepted")
            } catch let error as MSALFailure {
                #expect(error.internalCode == .idTokenAudienceMismatch)
            }
        }
    }

    @Test("At most validatedTokenCacheSize tokens are remembered; expired ones are dropped first")
    func boundedCache() async throws {
        let setup = try Self.setup(validatedTokenCacheSize: 0)
        let now = setup.clock.now()
        let tokens = try (0..<5).map { index in
            try Self.token(setup.clock) {
                $0["sub"] = .string("user-\(index)"); $0["exp"] = .integer(Int64(now.timeIntervalSince1970) + 60 * Int64(index + 1))
            }
        }
        var validated: [AccessToken] = []
        for token in tokens { validated.append(try await setup.validator.validate(token)) }
        let keySet = try JSONWebKeySet(
            json: JSONWriter.write(.object([JSONMember(name: "keys", value: .array([try Self.signer.publicJWK()]))])))
        let key = try #require(keySet.verifyingKey(for: validated[0].jwt))
        let cache = ValidatedTokenCache(capacity: 2)
        for (token, checked) in zip(tokens, validated) { cache.keep(checked, key: key, token: token, skew: 0, now: now) }
        #expect(cache.count == 2)
        #expect(cache.remembered(tokens[4], now: now)?.token.subject == "user-4", "the token kept last is there")
        #expect(tokens.filter { cache.remembered($0, now: now) != nil }.count == 2)

        // With an expired token among them, a new token replaces the expired one, not a live one.
        let second = ValidatedTokenCache(capacity: 2)
        second.keep(validated[0], key: key, token: tokens[0], skew: 0, now: now)  // expires at now + 60
        second.keep(validated[4], key: key, token: tokens[4], skew: 0, now: now)  // at now + 300
        let later = now.addingTimeInterval(120)
        second.keep(validated[3], key: key, token: tokens[3], skew: 0, now: later)
        #expect(second.count == 2)
        #expect(second.remembered(tokens[4], now: later) != nil && second.remembered(tokens[3], now: later) != nil)
        #expect(second.remembered(tokens[0], now: now) == nil, "the expired token went")
        #expect(ValidatedTokenCache(capacity: 0).remembered(tokens[0], now: now) == nil)
    }

    @Test("Tokens that end alike share a place in memory, never an answer: each is compared whole")
    func tokensThatEndAlike() async throws {
        let setup = try Self.setup(validatedTokenCacheSize: 0)
        let now = setup.clock.now()
        let token = try Self.token(setup.clock)
        let validated = try await setup.validator.validate(token)
        let keySet = try JSONWebKeySet(
            json: JSONWriter.write(.object([JSONMember(name: "keys", value: .array([try Self.signer.publicJWK()]))])))
        let key = try #require(keySet.verifyingKey(for: validated.jwt))
        let cache = ValidatedTokenCache(capacity: 8)
        cache.keep(validated, key: key, token: token, skew: 0, now: now)

        // The same length and the same last 64 bytes (the signature's), one byte changed before them:
        // the same place in memory, and not the same token.
        var bytes = Array(token.utf8)
        for index in [0, bytes.count / 2, bytes.count - 65] {
            var changed = bytes
            changed[index] = changed[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            let text = String(decoding: changed, as: UTF8.self)
            #expect(
                changed.withUnsafeBufferPointer(ValidatedTokenCache.bucket) == bytes.withUnsafeBufferPointer(ValidatedTokenCache.bucket))
            #expect(cache.remembered(text, now: now) == nil, "a token differing at byte \(index) was answered from memory")
            #expect(changed.withUnsafeBufferPointer { cache.remembered($0, now: now) } == nil)
        }
        // Shorter or longer by a byte: not the same token either.
        #expect(cache.remembered(String(token.dropFirst()), now: now) == nil)
        #expect(cache.remembered("A" + token, now: now) == nil)
        #expect(cache.remembered(token, now: now)?.token.subject == "user-sub")
        #expect(bytes.withUnsafeBufferPointer { cache.remembered($0, now: now) }?.token.subject == "user-sub")

        // A second token in the same place replaces the first: the first is then checked again, never
        // answered as the second.
        bytes[bytes.count / 2] = bytes[bytes.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let other = String(decoding: bytes, as: UTF8.self)
        cache.keep(validated, key: key, token: other, skew: 0, now: now)
        #expect(cache.count == 1)
        #expect(cache.remembered(token, now: now) == nil)
        #expect(cache.remembered(other, now: now) != nil)
        #expect(
            ValidatedTokenCache.bucket(UnsafeBufferPointer(start: nil, count: 0))
                == ValidatedTokenCache.bucket(UnsafeBufferPointer(start: nil, count: 0)))
    }
}
