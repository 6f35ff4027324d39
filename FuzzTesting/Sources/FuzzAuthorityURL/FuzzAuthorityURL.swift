// Authority URL parsing (`AuthorityComponents`, through `@_spi(Fuzzing)`, and the public
// `MSALAuthority(url:)`).
//
// Input: an authority URL.
//
// Invariants, for every kind (and detection) with and without the loopback opt-in:
// - The canonical form of a parsed authority parses again to the same kind, host, port, tenant,
//   policy, issuer path and canonical form (canonicalization is idempotent).
// - The canonical form is printable ASCII, starts with the scheme and the lower-case host, and is
//   https unless the loopback opt-in was given and the host is a loopback address.
// - A detected kind, given explicitly, gives the same result.
// - An authority from `MSALAuthority(url:)` is accepted again, from its URL, by the class of its kind,
//   and compares equal.
// - A failure is an MSALFailure with `invalidAuthority`.

import Foundation
import FuzzCheck
@_spi(Fuzzing) import MSAL

let kinds: [MSALAuthorityKind?] = [nil] + MSALAuthorityKind.allCases.map(Optional.some)

/// libFuzzer's entry point: parses the input as an authority URL for every kind, with and without
/// the loopback opt-in, and through `MSALAuthority(url:)`; returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAuthorityURL(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: fuzzBytes(data, size), as: UTF8.self)
    for loopback in [false, true] {
        for kind in kinds {
            check(text, kind: kind, loopback: loopback)
        }
    }
    if let url = URL(string: text), let authority = try? MSALAuthority(url: url) {
        // The class of its kind reads the URL back (a B2C authority on a custom domain, found by its
        // `tfp` segment, has a canonical URL without it: only MSALB2CAuthority knows it is B2C then).
        let again: MSALAuthority?
        switch authority.kind {
        case .aad: again = try? MSALAADAuthority(url: authority.url)
        case .b2c: again = try? MSALB2CAuthority(url: authority.url)
        case .ciam: again = try? MSALCIAMAuthority(url: authority.url)
        case .adfs: again = try? MSALADFSAuthority(url: authority.url)
        case .oidc: again = try? MSALOIDCAuthority(url: authority.url)
        }
        fuzzCheck(again != nil, "the \(authority.kind) authority class refuses its own URL \(authority.url.absoluteString)")
        fuzzCheck(again.map { $0 == authority } ?? true, "the \(authority.kind) authority of its own URL is another authority")
    }
    return 0
}

func check(_ text: String, kind: MSALAuthorityKind?, loopback: Bool) {
    let parsed: MSALFuzzingSupport.ParsedAuthority
    do throws(MSALFailure) {
        parsed = try MSALFuzzingSupport.parseAuthority(text, kind: kind, allowInsecureLoopback: loopback)
    } catch {
        fuzzCheck(error.internalCode == .invalidAuthority, "authority parsing failed with \(String(describing: error.internalCode))")
        return
    }
    if let kind { fuzzCheck(parsed.kind == kind, "asked for \(kind), got \(parsed.kind)") }
    let canonical = parsed.canonical
    fuzzCheck(canonical.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "canonical form \(canonical.debugDescription) is not printable ASCII")
    fuzzCheck(parsed.host == parsed.host.lowercased(), "host \(parsed.host) is not lower-case")
    fuzzCheck(canonical.hasPrefix("\(parsed.scheme)://\(parsed.host)"), "canonical form \(canonical) does not start with scheme and host")
    fuzzCheck(
        parsed.scheme == "https" || (parsed.scheme == "http" && loopback && parsed.isLoopback),
        "scheme \(parsed.scheme) accepted for \(text.debugDescription)")

    let again: MSALFuzzingSupport.ParsedAuthority
    do throws(MSALFailure) {
        again = try MSALFuzzingSupport.parseAuthority(canonical, kind: parsed.kind, allowInsecureLoopback: loopback)
    } catch {
        fuzzCheck(false, "canonical form \(canonical) of \(text.debugDescription) does not parse: \(error.message)")
        return
    }
    fuzzCheck(
        again.kind == parsed.kind && again.host == parsed.host && again.port == parsed.port && again.tenant == parsed.tenant
            && again.policy == parsed.policy && again.issuerPath == parsed.issuerPath && again.canonical == canonical,
        "canonical form \(canonical) parses to \(again), not \(parsed)")

    if kind == nil {
        let explicit = try? MSALFuzzingSupport.parseAuthority(text, kind: parsed.kind, allowInsecureLoopback: loopback)
        fuzzCheck(explicit == parsed, "detected kind \(parsed.kind) given explicitly gives \(String(describing: explicit))")
    }
}
