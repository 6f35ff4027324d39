import ArgumentParser
import Foundation
import MSAL

/// `--authority-kind`: which kind of provider an authority URL names. `auto` reads it from the
/// URL as ``MSALAuthority/authority(url:options:)`` does; a generic OpenID Connect provider cannot
/// be told from its URL and must be named with `oidc`.
enum AuthorityKindOption: String, ExpressibleByArgument, CaseIterable {
    case auto, aad, b2c, ciam, adfs, oidc

    /// The authority `text` names, as this kind.
    func authority(_ text: String, options: MSALAuthorityOptions) throws -> MSALAuthority {
        guard let url = URL(string: text) else {
            throw MSALFailure(.internal, internalCode: .invalidAuthority, message: "Invalid authority: not a URL.")
        }
        do {
            switch self {
            case .auto: return try MSALAuthority.authority(url: url, options: options)
            case .aad: return try MSALAADAuthority(url: url, options: options)
            case .b2c: return try MSALB2CAuthority(url: url, options: options)
            case .ciam: return try MSALCIAMAuthority(url: url, options: options)
            case .adfs: return try MSALADFSAuthority(url: url, options: options)
            case .oidc: return try MSALOIDCAuthority(url: url, options: options)
            }
        } catch var error as MSALFailure where error.message.contains("allowInsecureLoopback") {
            // The library names its option; a command-line user needs the flag.
            error.message += " In the msal command: --allow-http-loopback."
            throw error
        }
    }
}
