import ArgumentParser
import Foundation
import MSAL
import MSALTesting

/// Options shared by every verb that talks to an identity provider.
struct NetworkOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Answer every HTTP request from this recorded fixture (docs/fixtures.md) instead of the network.",
            valueName: "file"))
    var replay: String?

    @Option(
        name: .customLong("ca-file"),
        help: ArgumentHelp(
            "Trust only the CA certificates in this PEM file, instead of the system's, for TLS (a private certificate authority).",
            valueName: "file"))
    var caFile: String?

    /// The replay transport for `--replay`, else the libcurl transport (trusting `--ca-file` when given).
    func transport() throws -> any MSALHTTPTransport {
        guard let replay else { return caFile.map { MSALCurlTransport(trustedCertificatesFile: $0) } ?? MSALCurlTransport() }
        return try MSALReplayTransport(contentsOf: URL(fileURLWithPath: replay))
    }
}
