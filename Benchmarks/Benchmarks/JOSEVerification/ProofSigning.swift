// Proofs of possession (issue 40): what a bound token costs per resource request, against what
// OpenSSL alone costs to sign the same number of bytes with the same key. Target: (p) ≤ 1.2× (s)
// in one run (docs/performance.md).
//
//   (p) DPoP    MSALResult.dpopProof's work: a DPoP proof for a resource request — header with the
//               public jwk, claims jti (16 random bytes), htm, htu (normalized), iat, ath (SHA-256 of
//               the token), nonce — written, base64url-encoded and signed (ES256)
//   (s) DPoP    OpenSSL bare EVP_DigestSign (ECDSA P-256, SHA-256) of a signing input of the same length
//   (p) SHR     MSAL's signed HTTP request for a PoP result (RS256 over at, ts, m, u, p, nonce, cnf.jwk)
//   (s) SHR     OpenSSL bare EVP_DigestSign (RSA 2048 PKCS#1 v1.5, SHA-256) of the same length

import Benchmark
import Foundation
import JOSEBenchmarkSupport
@_spi(Benchmarks) import MSAL

func proofSigningBenchmarks() {
    let token = SampleCase.accessTokenRS256.token
    let url = URL(string: "https://api.contoso.example/v1.0/orders?page=2")!
    let now = Int64(1_767_225_600)
    let dpopKey: MSALProofBenchmarkSupport.Key
    let shrKey: MSALProofBenchmarkSupport.Key
    let dpopInput: [UInt8]
    let shrInput: [UInt8]
    do {
        dpopKey = try MSALProofBenchmarkSupport.dpopKey()
        shrKey = try MSALProofBenchmarkSupport.signedHTTPRequestKey()
        // The baseline signs exactly as many bytes as a proof's signing input (header.payload).
        let dpop = try MSALProofBenchmarkSupport.dpopProof(
            dpopKey, method: "GET", url: url, accessToken: token, nonce: "n-1", issuedAt: now)
        let shr = try MSALProofBenchmarkSupport.signedHTTPRequest(
            shrKey, accessToken: token, method: "GET", url: url, nonce: nil, timestamp: now)
        dpopInput = Array(dpop.utf8[..<dpop.utf8.lastIndex(of: UInt8(ascii: "."))!])
        shrInput = Array(shr.utf8[..<shr.utf8.lastIndex(of: UInt8(ascii: "."))!])
    } catch {
        fatalError("proof keys: \(error)")
    }

    Benchmark("Proof DPoP ES256 (p) DPoP proof for a resource request (ath, nonce)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(
                try MSALProofBenchmarkSupport.dpopProof(dpopKey, method: "GET", url: url, accessToken: token, nonce: "n-1", issuedAt: now))
        }
    }
    let dpopBaseline: BaselineSigner
    do {
        dpopBaseline = BaselineSigner(pem: try dpopKey.privateKeyPEM(), message: dpopInput)
    } catch {
        fatalError("DPoP key PEM: \(error)")
    }
    Benchmark("Proof DPoP ES256 (s) OpenSSL bare EVP_DigestSign of the same length") { benchmark in
        blackHole(dpopBaseline.run(iterations: benchmark.scaledIterations))
    }

    Benchmark("Proof SHR RS256 (p) signed HTTP request (at, ts, m, u, p, nonce, cnf)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(
                try MSALProofBenchmarkSupport.signedHTTPRequest(
                    shrKey, accessToken: token, method: "GET", url: url, nonce: nil, timestamp: now))
        }
    }
    let shrBaseline: BaselineSigner
    do {
        shrBaseline = BaselineSigner(pem: try shrKey.privateKeyPEM(), message: shrInput)
    } catch {
        fatalError("SHR key PEM: \(error)")
    }
    Benchmark("Proof SHR RS256 (s) OpenSSL bare EVP_DigestSign of the same length") { benchmark in
        blackHole(shrBaseline.run(iterations: benchmark.scaledIterations))
    }
}
