// Access-token validation for a protected API (RS256, warm key set): what an API pays per request
// to check a caller's bearer token. Targets (issue 23): (f) ≥ 0.9× the bare OpenSSL verify of the
// same token (b), and ≥ 1.25× jwt-kit doing the same checks (c), in one run.
//
//   (f)  MSALJOSE AccessTokenValidator.validate + require(scopes:)   the key set already parsed
//   (f') MSALAccessTokenValidator.validate(authorizationHeader:)     the public API: the header, the
//                                                                   authority's cached metadata and
//                                                                   keys, the same checks, every
//                                                                   token verified (no validated-token
//                                                                   cache)
//   (f") the same with the validated-token cache (the default): the   a caller sending the same token
//        token checked in setup, then answered from memory            with each request
//   (b)  OpenSSL bare EVP_DigestVerify                               the floor, on the access token
//   (c)  jwt-kit 5.x full access-token validation                    signature, iss, aud, exp/nbf/iat
//                                                                   with skew, the scope

import Benchmark
import Foundation
import JOSEBenchmarkSupport
import JWTKit
import MSAL
import MSALJOSE

func accessTokenValidationBenchmarks() {
    let sample = SampleCase.accessTokenRS256
    let token = sample.token
    let now = SampleFixtures.now
    let scopes = [SampleAccessTokenPayload.requiredScope]

    // (f) MSALJOSE: the key set parsed once, as the public validator keeps it.
    let validator: AccessTokenValidator
    do {
        validator = AccessTokenValidator(
            keySet: try JSONWebKeySet(json: SampleFixtures.bytes("jwks.json")),
            options: AccessTokenValidationOptions(
                issuers: SampleAccessTokenPayload.issuers, audiences: SampleAccessTokenPayload.audiences,
                clockSkew: SampleAccessTokenPayload.skew))
        let checked = try validator.validate(token, now: now)
        try checked.require(scopes: scopes)
        precondition(checked.jwt.isSignatureVerified && checked.scopes.contains("access_as_user"))
    } catch {
        fatalError("the sample access token does not validate with MSALJOSE: \(error)")
    }
    Benchmark("Access token RS256 (f) MSALJOSE AccessTokenValidator + require(scopes:)") { benchmark in
        for _ in benchmark.scaledIterations {
            let checked = try validator.validate(token, now: now)
            try checked.require(scopes: scopes)
            blackHole(checked)
        }
    }

    // (f') The public API, warm: metadata and keys fetched in setup, from memory afterwards.
    let header = "Bearer \(token)"
    /// The public validator for the sample tenant, remembering `cacheSize` validated tokens.
    func makePublicValidator(cacheSize: Int) -> MSALAccessTokenValidator {
        do {
            return try MSALAccessTokenValidator(
                authority: try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/\(SampleTenantTransport.tenant)")!),
                audiences: SampleAccessTokenPayload.audiences, validatedTokenCacheSize: cacheSize,
                transport: SampleTenantTransport(), clock: SampleClock())
        } catch {
            fatalError("MSALAccessTokenValidator: \(error)")
        }
    }
    let publicValidator = makePublicValidator(cacheSize: 0)
    let correlationID = UUID()
    Benchmark(
        "Access token RS256 (f') MSALAccessTokenValidator.validate(authorizationHeader:) + require(scopes:)",
        closure: { benchmark in
            for _ in benchmark.scaledIterations {
                let checked = try await publicValidator.validate(authorizationHeader: header, correlationID: correlationID)
                try checked.require(scopes: scopes)
                blackHole(checked)
            }
        },
        setup: {
            let checked = try await publicValidator.validate(authorizationHeader: header, correlationID: correlationID)
            try checked.require(scopes: scopes)
        }
    )

    // (f") The public API with its validated-token cache: the same token again, as a caller sends it.
    let rememberingValidator = makePublicValidator(cacheSize: 1024)
    Benchmark(
        "Access token RS256 (f\") MSALAccessTokenValidator, the same token again (validated-token cache)",
        closure: { benchmark in
            for _ in benchmark.scaledIterations {
                let checked = try await rememberingValidator.validate(authorizationHeader: header, correlationID: correlationID)
                try checked.require(scopes: scopes)
                blackHole(checked)
            }
        },
        setup: {
            let checked = try await rememberingValidator.validate(authorizationHeader: header, correlationID: correlationID)
            try checked.require(scopes: scopes)
        }
    )

    // (b) The floor on the same token.
    let baseline = BaselineInputs(sample)
    precondition(baseline.run(iterations: 0..<1) == 1, "the sample access token does not verify with bare OpenSSL")
    Benchmark("Access token RS256 (b) OpenSSL bare EVP_DigestVerify") { benchmark in
        baseline.run(iterations: benchmark.scaledIterations)
    }

    // (c) jwt-kit: the key added and the token checked once in setup.
    let keys = JWTKeyCollection()
    Benchmark(
        "Access token RS256 (c) jwt-kit 5.x full access-token validation",
        closure: { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try await keys.verify(token, as: SampleAccessTokenPayload.self))
            }
        },
        setup: {
            try await JWTKitSetup.addKey(for: sample, to: keys)
            let payload = try await keys.verify(token, as: SampleAccessTokenPayload.self)
            precondition(payload.scp?.contains("access_as_user") == true)
        }
    )
}
