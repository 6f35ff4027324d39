// DPoP's untrusted inputs (RFC 9449): a resource's `WWW-Authenticate` header as the client reads it
// (`DPoPChallenge`, through `@_spi(Fuzzing)`), and a DPoP proof as a server checks it
// (`DPoPProofVerifier`).
//
// Input: the header value; the same bytes as a proof; and, split at the first newline, a proof
// and the URI it is checked against.
//
// Invariants:
// - Every challenge's scheme is a non-empty RFC 9110 token; parameter names are non-empty tokens
//   in lower case; asking for a nonce is exactly a `dpop` challenge whose `error` is
//   `use_dpop_nonce`. Reading the header twice gives the same challenges.
// - A proof is refused with a JOSEError, or accepted with a 43-character base64url thumbprint and
//   a `jti` of 1 to 256 bytes; checking it again gives the same answer, and so does checking it
//   with its header's key remembered from a first check (`DPoPProofKeys`).
// - `htu` normalization is idempotent and keeps no query or fragment.

import FuzzCheck
@_spi(Fuzzing) import MSAL
import MSALJOSE

/// The fixed time proofs are judged at: the `iat` of RFC 9449 §4.1's example proof, a seed that
/// then passes every check.
let now: Int64 = 1_562_262_616

func isToken(_ text: String) -> Bool {
    !text.isEmpty
        && text.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
}

func isBase64URL(_ byte: UInt8) -> Bool {
    (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: "-")
        || byte == UInt8(ascii: "_")
}

/// libFuzzer's entry point: reads the input as a challenge header and as a proof; returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDPoP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let text = String(decoding: bytes, as: UTF8.self)

    let challenges = MSALFuzzingSupport.dpopChallenges(text)
    for challenge in challenges {
        fuzzCheck(isToken(challenge.scheme), "scheme \(challenge.scheme.debugDescription) is not a token")
        for name in challenge.parameters.keys {
            fuzzCheck(isToken(name) && name == name.lowercased(), "parameter name \(name.debugDescription) is not a lower-case token")
        }
    }
    let again = MSALFuzzingSupport.dpopChallenges(text)
    fuzzCheck(
        again.count == challenges.count && zip(again, challenges).allSatisfy { $0.scheme == $1.scheme && $0.parameters == $1.parameters },
        "the header read twice gave other challenges")
    let asks = challenges.contains { $0.scheme.lowercased() == "dpop" && $0.parameters["error"] == "use_dpop_nonce" }
    fuzzCheck(MSALFuzzingSupport.dpopAsksForNonce(text) == asks, "asksForNonce disagrees with the challenges")

    check(text, targetURI: "https://server.example.com/token")
    if let (proof, uri) = fuzzSplit(bytes, at: UInt8(ascii: "\n")) {
        let target = String(decoding: uri, as: UTF8.self)
        check(String(decoding: proof, as: UTF8.self), targetURI: target)
        let normalized = MSALFuzzingSupport.normalizedTargetURI(target)
        fuzzCheck(
            MSALFuzzingSupport.normalizedTargetURI(normalized) == normalized,
            "htu normalization is not idempotent: \(target.debugDescription)")
        fuzzCheck(
            !normalized.contains("?") && !normalized.contains("#"),
            "a normalized htu keeps a query or fragment: \(normalized.debugDescription)")
    }
    return 0
}

func check(_ proof: String, targetURI: String) {
    func verify(rememberingKeys: Bool = false) -> Result<(thumbprint: String, jti: String, issuedAt: Int64), JOSEError> {
        Result(catching: { () throws(JOSEError) in
            try MSALFuzzingSupport.verifyDPoPProof(
                proof, method: "POST", targetURI: targetURI, accessToken: nil, nonce: nil, now: now, rememberingKeys: rememberingKeys)
        })
    }
    let first = verify()
    switch first {
    case .success(let accepted):
        fuzzCheck(
            accepted.thumbprint.utf8.count == 43 && accepted.thumbprint.utf8.allSatisfy(isBase64URL),
            "accepted a proof with the thumbprint \(accepted.thumbprint.debugDescription)")
        fuzzCheck(
            !accepted.jti.isEmpty && accepted.jti.utf8.count <= 256, "accepted a proof with a jti of \(accepted.jti.utf8.count) bytes")
        guard case .success(let second) = verify(), second == accepted else {
            fuzzCheck(false, "the same proof checked again gave another answer")
            return
        }
        guard case .success(let remembered) = verify(rememberingKeys: true), remembered == accepted else {
            fuzzCheck(false, "the proof checked with its key remembered gave another answer")
            return
        }
    case .failure(let error):
        guard case .failure(let again) = verify(), again.code == error.code else {
            fuzzCheck(false, "the same refused proof checked again gave another answer")
            return
        }
        guard case .failure(let remembered) = verify(rememberingKeys: true), remembered.code == error.code else {
            fuzzCheck(false, "the refused proof checked with a key store gave another answer")
            return
        }
    }
}
