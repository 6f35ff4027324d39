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

    /// The replay transport for `--replay`, else the default libcurl transport.
    func transport() throws -> any MSALHTTPTransport {
        guard let replay else { return MSALCurlTransport() }
        return try MSALReplayTransport(contentsOf: URL(fileURLWithPath: replay))
    }
}
