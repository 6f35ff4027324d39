// Compact JWS parse + verify (MSALJOSE's public API).
//
// Input: a compact token, or `<JWK set JSON>\n<token>`.
//
// Invariants:
// - A token never verifies against the decoy set: the sample key ids with other key material.
//   Whatever the header says, a signature made with one key must not pass with another.
// - A token that verifies against the sample keys decodes to the same header and claims without
//   verification, names (by `kid`) a key of the set, fails once that key is taken out, and fails
//   when its `alg` is not allowed.
// - The same holds for a token verified against a key set taken from the input.

import Foundation
import FuzzCheck
import MSALJOSE

/// Parses a key set written into this target; one that does not parse means the harness is broken.
func builtInKeySet(_ name: String, _ json: String) -> JSONWebKeySet {
    do {
        return try JSONWebKeySet(json: Array(json.utf8))
    } catch {
        fatalError("the built-in \(name) key set does not parse: \(error)")
    }
}

/// Fixtures/Samples/jwks.json: the keys that signed Fixtures/Samples/id-token-*.jwt.
let sampleKeySet = builtInKeySet(
    "sample",
    #"""
    {"keys":[{"kty":"RSA","kid":"sample-rsa-2048","use":"sig","alg":"RS256","n":"mB7m7tlqn_LWMXHTkoglBTeZ6lYWrsYwARXqZO_pCFiNHW_rml-wLkUYhTThjG-7CksRPwZDedzvuy6QnmHrnKWmGYWfPoVguJ2blDiYSrdHArZWF4aGjXAxyyK55NPoRMkxvYmzzG3eZxm_tDUMAXD7bxPQE3AlzsVIqaTNEVAdC3pvrXes11U-X5q6KtNXsDY-z5aHiKdyslJ2SC507XSod-6sKRCw1-nzvxuGJVbuYjLUD0D3n2c6K0oAHYrfrVuEvDu1-cDHoD9KBn464HsIe12x_-7HM6QxgdFyavgjLaa9AYWoNl9x1lc3vGC9SifLlwUI1wZBT3rJyqURqQ","e":"AQAB"},{"kty":"EC","kid":"sample-ec-p256","use":"sig","alg":"ES256","crv":"P-256","x":"pCo12Om6QYXcKfKiRu090orkOxDSZtfzvhp1nTFgV8Y","y":"Cqsot2189uXm8uJJWKs3-ybVEA8qfD9MJJe_oT7FbpA"},{"kty":"EC","kid":"sample-ec-p384","use":"sig","alg":"ES384","crv":"P-384","x":"r8J0eFy6bUfYYBIBG_6m6lCqG9NfDP6M6a1OchlgGsoG9H7--tUiF6q11OIJVbRl","y":"gpGpjsS_ilOB1v12wb7gmNPm91txDakArgJQ4lRp5PELIHVtJburnLPKE1Ogwd7Z"},{"kty":"oct","kid":"sample-oct","k":"c2VjcmV0"}]}
    """#)

/// The same key ids, types and algorithms with freshly generated public keys whose private halves
/// were thrown away: nothing can verify against them.
let decoyKeySet = builtInKeySet(
    "decoy",
    #"""
    {"keys":[{"kty":"RSA","kid":"sample-rsa-2048","use":"sig","alg":"RS256","n":"lwSkefhqbPDzb0_NczBmFB8QzoBkDVmmIlSKGxlAM7QusxkQblnmNF2xYS5OD4KOaHNnB58XnzNmHPAYwYxLSpRkhJ1rhfXiIuRRznlXzm72SgkcTGntVFwmeuug4gz76dZjTH192YJBfiADH-zlYupMcCynsuIODXiLxYtiw51vEDXx4DL8h2TBoWcOS6P-QZhxeSAyGISCjcjfHH8uaIzUpGbzVlJrZ-pdrdiMSnHKLaM7pbE8AnC3elF7D_UE5WrdCVS4Rtc4XYQtTzkhWmQq1UffLGv7WMeUMJs4BKZEcGjisbKQ3EXtLXvN_h0vZkx-NqkuILHeLetKm2fP0w","e":"AQAB"},{"kty":"EC","kid":"sample-ec-p256","use":"sig","alg":"ES256","crv":"P-256","x":"ISGZRx83T1Rrn_mfStgerCJsVUPiNC9B3rVTgusQ-t4","y":"y1F2zAQQc2yZ5Wj2o2xJHf3B0ZyNcXmGLIoMDrt9AHQ"},{"kty":"EC","kid":"sample-ec-p384","use":"sig","alg":"ES384","crv":"P-384","x":"CB85NY7R8-2b5-X2WBiPKr6sLcnwr98YF0lfG31p0lhpAsGsUm5yoU36AWAqphKY","y":"WXIJo334aIBDgxLKcvJ80ZgzaSs3nGxsFKzX7lj4EJ8WbkMgRTJ3JQT3AHbDEI2k"},{"kty":"RSA","kid":"decoy-rsa-noalg","n":"lwSkefhqbPDzb0_NczBmFB8QzoBkDVmmIlSKGxlAM7QusxkQblnmNF2xYS5OD4KOaHNnB58XnzNmHPAYwYxLSpRkhJ1rhfXiIuRRznlXzm72SgkcTGntVFwmeuug4gz76dZjTH192YJBfiADH-zlYupMcCynsuIODXiLxYtiw51vEDXx4DL8h2TBoWcOS6P-QZhxeSAyGISCjcjfHH8uaIzUpGbzVlJrZ-pdrdiMSnHKLaM7pbE8AnC3elF7D_UE5WrdCVS4Rtc4XYQtTzkhWmQq1UffLGv7WMeUMJs4BKZEcGjisbKQ3EXtLXvN_h0vZkx-NqkuILHeLetKm2fP0w","e":"AQAB"}]}
    """#)

/// A moment inside the sample tokens' lifetime does not matter: claims checks only have to end in a typed error.
let validationTime = Date(timeIntervalSince1970: 1_767_225_600)

/// libFuzzer's entry point: verifies the input's token against the decoy keys and against the
/// sample keys, or the input's own key set when it has one; returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWS(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    if let (keyBytes, tokenBytes) = fuzzSplit(bytes, at: UInt8(ascii: "\n")) {
        let token = String(decoding: tokenBytes, as: UTF8.self)
        checkDecoys(token)
        if let keySet = try? JSONWebKeySet(json: keyBytes) {
            checkVerification(token, keySet: keySet)
        }
    } else {
        let token = String(decoding: bytes, as: UTF8.self)
        checkDecoys(token)
        checkVerification(token, keySet: sampleKeySet)
    }
    return 0
}

/// No token verifies against keys nobody holds the private half of.
func checkDecoys(_ token: String) {
    let forged = try? JWTVerifier(keySet: decoyKeySet).verify(token)
    fuzzCheck(forged == nil, "a token verified against the decoy key set")
}

/// What must hold for a token checked against `keySet`.
func checkVerification(_ token: String, keySet: JSONWebKeySet) {
    let unverified = try? JWT.decodeUnverified(token)
    let verified: JWT
    do throws(JOSEError) {
        verified = try JWTVerifier(keySet: keySet).verify(token)
    } catch {
        return
    }
    fuzzCheck(verified.isSignatureVerified, "a verified token is not marked verified")
    guard let unverified else {
        fuzzCheck(false, "a token verifies but does not decode without verification")
        return
    }
    fuzzCheck(!unverified.isSignatureVerified, "an unverified decode is marked verified")
    fuzzCheck(unverified.headerJSON == verified.headerJSON, "verified and unverified headers differ")
    fuzzCheck(unverified.claimsJSON == verified.claimsJSON, "verified and unverified claims differ")

    guard let name = verified.algorithmName, let algorithm = JWSAlgorithm(rawValue: name) else {
        fuzzCheck(false, "a verified token has no supported alg")
        return
    }
    let otherAlgorithms = Set(JWSAlgorithm.allCases).subtracting([algorithm])
    fuzzCheck(
        (try? JWTVerifier(keySet: keySet, allowedAlgorithms: otherAlgorithms).verify(token)) == nil,
        "a token verifies although its alg \(name) is not allowed")

    // The key that verified it: the one its kid names, or (without a kid) the only one that fits.
    let remaining: [JSONWebKey]
    if let keyID = verified.keyID {
        fuzzCheck(keySet.keys.contains { $0.keyID == keyID }, "a token verifies with kid \(keyID), which no key in the set has")
        remaining = keySet.keys.filter { $0.keyID != keyID }
    } else {
        let fitting = keySet.keys.filter { (try? $0.checkUsable(for: algorithm)) != nil }
        fuzzCheck(fitting.count == 1, "a token without kid verifies although \(fitting.count) keys fit \(name)")
        remaining = keySet.keys.filter { (try? $0.checkUsable(for: algorithm)) == nil }
    }
    fuzzCheck(
        (try? JWTVerifier(keySet: JSONWebKeySet(keys: remaining)).verify(token)) == nil,
        "a token still verifies after the key it names was taken out of the set")

    // The claims checks on top of a good signature end in a typed error or an ID token, never a crash.
    let options = IDTokenValidationOptions(
        issuer: verified.stringClaim("iss") ?? "", clientID: verified.stringListClaim("aud")?.first ?? "",
        nonce: verified.stringClaim("nonce"))
    _ = try? IDTokenValidator(keySet: keySet, options: options).validate(token, now: validationTime)
}
