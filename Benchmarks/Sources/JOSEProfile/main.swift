// A plain loop over one benchmark case, for profilers that need a simple
// process (valgrind --tool=callgrind, perf). Not a benchmark: it prints no timing.
//
//   .build/release/JOSEProfile <case> [count]
//
// Cases: rs256-msal, rs256-openssl, es256-msal, es256-openssl, claims-msal, access-msal (the
// public MSALAccessTokenValidator on the sample access token, warm, every signature checked),
// access-msal-remembered (the same with the validated-token cache on, the default: the token is
// checked once, then answered from memory), dpop-msal (MSALAccessTokenValidator on a DPoP-bound
// token, warm, with `count` proofs made first and then validated, as DPoPValidation.swift's (v)),
// dpop-proof-msal (`count` DPoP proofs for a resource request, as ProofSigning.swift's (p)).

import Foundation
import JOSEBenchmarkSupport
@_spi(Benchmarks) import MSAL
import MSALJOSE

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print(
        "usage: JOSEProfile <rs256-msal|rs256-openssl|es256-msal|es256-openssl|claims-msal|access-msal|access-msal-remembered|dpop-msal|dpop-proof-msal> [count]"
    )
    exit(2)
}
let count = arguments.count >= 3 ? Int(arguments[2]) ?? 1_000 : 1_000

func sample(_ name: String) -> SampleCase {
    name.hasPrefix("es256") ? .es256 : .rs256
}

func runMSAL(_ sample: SampleCase) throws -> Int {
    let keySet = try JSONWebKeySet(json: SampleFixtures.bytes("jwks.json"))
    let validator = IDTokenValidator(
        keySet: keySet,
        options: IDTokenValidationOptions(
            issuer: SampleFixtures.issuer, clientID: SampleFixtures.clientID, nonce: SampleFixtures.nonce))
    var checksum = 0
    for _ in 0..<count {
        checksum &+= try validator.validate(sample.token, now: SampleFixtures.now).jwt.isSignatureVerified ? 1 : 0
    }
    return checksum
}

let name = arguments[1]
let checksum: Int
switch name {
case "rs256-msal", "es256-msal":
    checksum = try runMSAL(sample(name))
case "rs256-openssl", "es256-openssl":
    checksum = BaselineInputs(sample(name)).run(iterations: 0..<count)
case "claims-msal":
    var total = 0
    let token = SampleCase.rs256.token
    for _ in 0..<count {
        total &+= try JWT.decodeUnverified(token).claimNames.count
    }
    checksum = total
case "access-msal", "access-msal-remembered":
    let validator = try MSALAccessTokenValidator(
        authority: try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/\(SampleTenantTransport.tenant)")!),
        audiences: [SampleFixtures.clientID], validatedTokenCacheSize: name == "access-msal" ? 0 : 1_024,
        transport: SampleTenantTransport(),
        clock: SampleClock())
    let header = "Bearer \(SampleCase.accessTokenRS256.token)"
    // Off the main actor (top-level code runs on it), as a server's request handlers run.
    checksum = try await Task.detached {
        var total = 0
        for _ in 0..<count {
            total &+= try await validator.validate(authorizationHeader: header).scopes.count
        }
        return total
    }.value
case "dpop-proof-msal":
    let url = URL(string: "https://api.contoso.example/v1.0/orders?page=2")!
    let key = try MSALProofBenchmarkSupport.dpopKey()
    var total = 0
    for _ in 0..<count {
        total &+= try MSALProofBenchmarkSupport.dpopProof(
            key, method: "GET", url: url, accessToken: SampleCase.accessTokenRS256.token, nonce: "n-1", issuedAt: 1_767_225_600
        ).utf8.count
    }
    checksum = total
case "dpop-msal":
    let url = URL(string: "https://api.contoso.example/v1.0/orders?page=2")!
    let key = try MSALProofBenchmarkSupport.dpopKey()
    let claims = String(decoding: try Base64URL.decode(bytes: SampleCase.accessTokenRS256.segments.payload), as: UTF8.self)
    let token = SampleTokenSigner.rs256(payload: claims.dropLast() + #","cnf":{"jkt":"\#(key.thumbprint)"}}"#)
    let proofs = try (0...count).map { _ in
        try MSALProofBenchmarkSupport.dpopProof(
            key, method: "GET", url: url, accessToken: token, nonce: nil, issuedAt: Int64(SampleFixtures.now.timeIntervalSince1970))
    }
    let validator = try MSALAccessTokenValidator(
        authority: try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/\(SampleTenantTransport.tenant)")!),
        audiences: [SampleFixtures.clientID], transport: SampleTenantTransport(), clock: SampleClock())
    let header = "DPoP \(token)"
    checksum = try await Task.detached {
        var total = 0
        for proof in proofs {
            total &+= try await validator.validate(authorizationHeader: header, dpopProof: proof, httpMethod: "GET", requestURL: url)
                .scopes.count
        }
        return total
    }.value
default:
    print("unknown case \(name)")
    exit(2)
}
print("\(name): \(count) iterations, checksum \(checksum)")
