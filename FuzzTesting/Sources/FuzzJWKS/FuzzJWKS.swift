// JWK set parsing (MSALJOSE's public `JSONWebKeySet(json:)`).
//
// Input: a JWK set document.
//
// Invariants:
// - Every usable key is consistent: an EC key has a curve, an RSA key none and a size within the
//   accepted range; at most 1,024 entries are kept or rejected.
// - No key verifies a forged signature (all zero bytes, or a single 1 byte, of each algorithm's
//   length) for any algorithm it is usable for.
// - A key unusable for an algorithm refuses to verify with it (a typed error, not `false` or `true`).
import FuzzCheck
import MSALJOSE

let message = Array("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJmdXp6In0".utf8)

/// libFuzzer's entry point: parses the input as a JWK set and checks up to eight of its keys for
/// consistency and against forged signatures of every algorithm; returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWKS(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let keySet = try? JSONWebKeySet(json: bytes) else { return 0 }
    fuzzCheck(keySet.keys.count + keySet.rejectedKeys.count <= 1024, "more than 1,024 keys kept")
    for key in keySet.keys.prefix(8) {
        switch key.keyType {
        case .rsa:
            fuzzCheck(key.curve == nil, "an RSA key has a curve")
            fuzzCheck(
                (JSONWebKey.minimumRSABits...JSONWebKey.maximumRSABits).contains(key.bits),
                "an RSA key of \(key.bits) bits was accepted")
        case .ellipticCurve:
            fuzzCheck(key.curve != nil, "an EC key has no curve")
            fuzzCheck(key.bits == (key.curve?.coordinateSize ?? 0) * 8, "an EC key's size \(key.bits) does not match its curve")
        }
        for algorithm in JWSAlgorithm.allCases {
            let length = algorithm.keyType == .rsa ? (key.bits + 7) / 8 : (algorithm.curve?.coordinateSize ?? 32) * 2
            let zero = [UInt8](repeating: 0, count: length)
            var one = zero
            if !one.isEmpty { one[one.count - 1] = 1 }
            let usable = (try? key.checkUsable(for: algorithm)) != nil
            for signature in [zero, one, []] {
                do throws(JOSEError) {
                    let valid = try key.verify(signature: signature, over: message, algorithm: algorithm)
                    fuzzCheck(usable, "a key verified (\(valid)) with \(algorithm.rawValue), which it is not usable for")
                    fuzzCheck(!valid, "a forged \(algorithm.rawValue) signature verified")
                } catch {
                    continue
                }
            }
        }
    }
    return 0
}
