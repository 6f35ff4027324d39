// A protected API validating a DPoP-bound access token (issue 40): what the proof adds to a bearer
// validation, against what OpenSSL alone costs to verify the proof's signature. Target: (v) ≤ 1.2×
// ((b) + (o)) in one run (docs/performance.md).
//
//   (v) MSALAccessTokenValidator.validate(authorizationHeader: "DPoP <token>", dpopProof:,
//       httpMethod:, requestURL:) on an access token bound to the proof key (cnf.jkt), with a new
//       proof for each request: ES256 on P-256, ath of the token, no nonce (the default options
//       require none), each with its own jti (the validator refuses a jti twice). The proofs of an
//       iteration are made before its measurement starts (startMeasurement), so only validation is
//       timed. The replay store has its default size (65,536 proofs); a run makes about 50,000, all
//       with different jti, so none is refused (late in a run the store may be full and forget its
//       oldest proof for each new one, as a busy API's does).
//   (b) MSALAccessTokenValidator.validate(authorizationHeader: "Bearer <token>") on a token of the
//       same shape and size, not bound: the same claims with "xcf" where the bound one has "cnf".
//   (o) OpenSSL bare EVP_DigestVerify (ECDSA P-256, SHA-256) of one of those proofs — its signing
//       input and signature (DER) — with the proof's public key, a new context per verification.
//
// Both validators are the public API with its validated-token memory at its default (1,024 tokens)
// and warm: the token was validated once in setup, so each request answers it from memory (as
// (f") in AccessTokenValidation.swift) and (v) pays for the proof on top of that. Metadata and keys
// come from SampleTenantTransport (no network), the clock is SampleClock, and the proofs' iat is
// that clock's time.

import Benchmark
import Foundation
import JOSEBenchmarkSupport
@_spi(Benchmarks) import MSAL
import MSALJOSE

func dpopValidationBenchmarks() {
    let url = URL(string: "https://api.contoso.example/v1.0/orders?page=2")!
    let now = Int64(SampleFixtures.now.timeIntervalSince1970)
    let correlationID = UUID()
    let dpopKey: MSALProofBenchmarkSupport.Key
    let boundToken: String
    let bearerToken: String
    do {
        dpopKey = try MSALProofBenchmarkSupport.dpopKey()
        // The sample access token's claims, plus the binding (or, unbound, a claim of the same size).
        let claims = String(decoding: try Base64URL.decode(bytes: SampleCase.accessTokenRS256.segments.payload), as: UTF8.self)
        precondition(claims.hasSuffix("}"))
        let binding = #""cnf":{"jkt":"\#(dpopKey.thumbprint)"}"#
        let padding = #""xcf":{"jkt":"\#(dpopKey.thumbprint)"}"#
        boundToken = SampleTokenSigner.rs256(payload: claims.dropLast() + "," + binding + "}")
        bearerToken = SampleTokenSigner.rs256(payload: claims.dropLast() + "," + padding + "}")
        precondition(boundToken.utf8.count == bearerToken.utf8.count)
    } catch {
        fatalError("DPoP validation setup: \(error)")
    }
    /// A new proof for a GET of `url` with `boundToken` (a new jti each time).
    @Sendable func makeProof() throws -> String {
        try MSALProofBenchmarkSupport.dpopProof(dpopKey, method: "GET", url: url, accessToken: boundToken, nonce: nil, issuedAt: now)
    }
    func makeValidator() -> MSALAccessTokenValidator {
        do {
            return try MSALAccessTokenValidator(
                authority: try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/\(SampleTenantTransport.tenant)")!),
                audiences: SampleAccessTokenPayload.audiences, transport: SampleTenantTransport(), clock: SampleClock())
        } catch {
            fatalError("MSALAccessTokenValidator: \(error)")
        }
    }

    // (v) The DPoP-bound token with a new proof per request.
    let dpopValidator = makeValidator()
    let dpopHeader = "DPoP \(boundToken)"
    Benchmark(
        "DPoP validation ES256 (v) MSALAccessTokenValidator DPoP token + new proof (warm memory)",
        closure: { benchmark in
            var proofs: [String] = []
            proofs.reserveCapacity(benchmark.scaledIterations.count)
            for _ in benchmark.scaledIterations { proofs.append(try makeProof()) }
            benchmark.startMeasurement()
            for proof in proofs {
                blackHole(
                    try await dpopValidator.validate(
                        authorizationHeader: dpopHeader, dpopProof: proof, httpMethod: "GET", requestURL: url,
                        correlationID: correlationID))
            }
            benchmark.stopMeasurement()
        },
        setup: {
            let checked = try await dpopValidator.validate(
                authorizationHeader: dpopHeader, dpopProof: try makeProof(), httpMethod: "GET", requestURL: url,
                correlationID: correlationID)
            precondition(checked.dpopKeyThumbprint == dpopKey.thumbprint)
        }
    )

    // (b) The unbound token of the same size, as a bearer token.
    let bearerValidator = makeValidator()
    let bearerHeader = "Bearer \(bearerToken)"
    Benchmark(
        "DPoP validation ES256 (b) MSALAccessTokenValidator bearer token, same size (warm memory)",
        closure: { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try await bearerValidator.validate(authorizationHeader: bearerHeader, correlationID: correlationID))
            }
        },
        setup: {
            let checked = try await bearerValidator.validate(authorizationHeader: bearerHeader, correlationID: correlationID)
            precondition(checked.dpopKeyThumbprint == nil)
        }
    )

    // (o) The proof's signature alone.
    let proofBaseline: BaselineInputs
    do {
        proofBaseline = BaselineInputs(
            jws: try makeProof(), algorithm: "ES256", key: BaselinePublicKey(publicHalfOf: try dpopKey.privateKeyPEM()))
    } catch {
        fatalError("DPoP proof baseline: \(error)")
    }
    precondition(proofBaseline.run(iterations: 0..<1) == 1, "the proof does not verify with bare OpenSSL")
    Benchmark("DPoP validation ES256 (o) OpenSSL bare EVP_DigestVerify of a proof") { benchmark in
        blackHole(proofBaseline.run(iterations: benchmark.scaledIterations))
    }
}
