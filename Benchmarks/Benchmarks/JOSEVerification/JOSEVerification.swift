// ID-token verification throughput: MSALJOSE against the bare OpenSSL EVP
// calls it is built on, and against jwt-kit 5 (swift-crypto/BoringSSL), on the
// same sample tokens and keys. Plus a claims-JSON micro-benchmark.
//
//   (a) MSALJOSE full ID-token verification   IDTokenValidator.validate(token, now:)
//   (b) OpenSSL bare EVP_DigestVerify         per token: EVP_MD_CTX_new, EVP_DigestVerifyInit,
//                                             EVP_DigestVerify, EVP_MD_CTX_free (the floor)
//   (c) jwt-kit 5.x full verification         JWTKeyCollection.verify(token, as:) with claim checks
//   (d) Claims JSON decoding                  JWT.decodeUnverified vs Foundation's coders
//   (c') jwt-kit signature check only         JWTAlgorithm.verify(signature, signs:), for context
//
// Every measured closure is synchronous except jwt-kit's, whose only API is an
// actor's async method; none of them touches the main actor. Each iteration
// runs 1,000 operations (scalingFactor .kilo), so the figures are per operation.

import Benchmark
import Foundation
import JOSEBenchmarkSupport
import JWTKit
import MSALJOSE

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.throughput, .wallClock, .mallocCountTotal],
        // Nanoseconds per operation, so ratios can be read off directly (scripts/ratios.py).
        timeUnits: .nanoseconds,
        warmupIterations: 3,
        scalingFactor: .kilo,
        maxDuration: .seconds(5),
        maxIterations: 1_000
    )

    let keySetJSON = SampleFixtures.bytes("jwks.json")

    for sample in [SampleCase.rs256, SampleCase.es256] {
        let alg = sample.algorithm
        let token = sample.token

        // (a) MSALJOSE: validator built once; the loop measures validate(token) only.
        let keySet: JSONWebKeySet
        do {
            keySet = try JSONWebKeySet(json: keySetJSON)
        } catch {
            fatalError("jwks.json: \(error)")
        }
        let validator = IDTokenValidator(
            keySet: keySet,
            options: IDTokenValidationOptions(
                issuer: SampleFixtures.issuer, clientID: SampleFixtures.clientID, nonce: SampleFixtures.nonce))
        let now = SampleFixtures.now
        do {
            let idToken = try validator.validate(token, now: now)
            precondition(idToken.jwt.isSignatureVerified && idToken.nonce == SampleFixtures.nonce)
        } catch {
            fatalError("\(alg) sample does not validate with MSALJOSE: \(error)")
        }
        Benchmark("\(alg) (a) MSALJOSE full ID-token verification") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try validator.validate(token, now: now))
            }
        }

        // (b) OpenSSL floor: key, digest, message and signature prepared once.
        let baseline = BaselineInputs(sample)
        precondition(baseline.run(iterations: 0..<1) == 1, "\(alg) sample does not verify with bare OpenSSL")
        Benchmark("\(alg) (b) OpenSSL bare EVP_DigestVerify") { benchmark in
            baseline.run(iterations: benchmark.scaledIterations)
        }

        // (c) jwt-kit: the key is added (and the token checked once) in setup.
        let keys = JWTKeyCollection()
        Benchmark(
            "\(alg) (c) jwt-kit 5.x full verification",
            closure: { benchmark in
                for _ in benchmark.scaledIterations {
                    blackHole(try await keys.verify(token, as: SampleIDTokenPayload.self))
                }
            },
            setup: {
                try await JWTKitSetup.addKey(for: sample, to: keys)
                let payload = try await keys.verify(token, as: SampleIDTokenPayload.self)
                precondition(payload.nonce == SampleFixtures.nonce)
            }
        )

        // (c') jwt-kit's signature check alone (swift-crypto, BoringSSL underneath), for
        // telling its crypto apart from the rest of (c). Not one of the targets.
        let signingInput = sample.signingInput
        guard let signature = try? Base64URL.decode(bytes: sample.segments.signature) else {
            fatalError("sample signature is not base64url")
        }
        let jwtKitKeys = JWTKeyCollection()
        Benchmark(
            "\(alg) (c') jwt-kit signature check only",
            closure: { benchmark in
                let algorithm = try await jwtKitKeys.getKey(for: JWKIdentifier(string: sample.keyID), alg: alg)
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    blackHole(try algorithm.verify(signature, signs: signingInput))
                }
            },
            setup: {
                try await JWTKitSetup.addKey(for: sample, to: jwtKitKeys)
                let algorithm = try await jwtKitKeys.getKey(for: JWKIdentifier(string: sample.keyID), alg: alg)
                let valid = try algorithm.verify(signature, signs: signingInput)
                precondition(valid)
            }
        )
    }

    // (e) Warm authority resolution (AuthorityResolution.swift).
    authorityResolutionBenchmarks()

    // (f) Access-token validation for a protected API (AccessTokenValidation.swift).
    accessTokenValidationBenchmarks()

    // Proofs of possession against bare OpenSSL signing (ProofSigning.swift).
    proofSigningBenchmarks()

    // A DPoP-bound token's validation against a bearer validation and the proof's bare verify (DPoPValidation.swift).
    dpopValidationBenchmarks()

    // (d) Claims JSON: the same claim set, decoded three ways. Our figure goes
    // through the public JWT.decodeUnverified, so it also pays for splitting
    // the token, base64url-decoding all three segments and parsing the header;
    // Foundation gets the already-decoded claims bytes.
    let token = SampleCase.rs256.token
    let claimsBytes: [UInt8]
    do {
        claimsBytes = try Base64URL.decode(bytes: SampleCase.rs256.segments.payload)
        _ = try JWT.decodeUnverified(token)
        _ = try JSONDecoder().decode(DecodedClaims.self, from: Data(claimsBytes))
    } catch {
        fatalError("claims fixture: \(error)")
    }
    let claimsData = Data(claimsBytes)

    Benchmark("Claims JSON (d) MSALJOSE JWT.decodeUnverified (whole token)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try JWT.decodeUnverified(token))
        }
    }
    Benchmark("Claims JSON (d) Foundation JSONSerialization.jsonObject") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try JSONSerialization.jsonObject(with: claimsData))
        }
    }
    Benchmark("Claims JSON (d) Foundation JSONDecoder into a struct") { benchmark in
        let decoder = JSONDecoder()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try decoder.decode(DecodedClaims.self, from: claimsData))
        }
    }
}
