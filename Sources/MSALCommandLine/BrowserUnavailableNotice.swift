import Foundation
import MSAL

/// What `msal login` prints when no browser can be started (an SSH session, a container): the
/// sign-in URL to open by hand while the loopback listener waits, how to reach that listener from
/// another machine, and the device code alternative.
enum BrowserUnavailableNotice {
    /// The notice for `url`, the authorization URL, whose `redirect_uri` names the listener's port.
    static func text(for url: URL, timeout: TimeInterval) -> String {
        let redirect = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
            .first { $0.name == "redirect_uri" }?.value.flatMap(URL.init(string:))
        var lines = [
            "No browser could be started. To sign in, open this URL in a browser within \(Int(timeout)) seconds:",
            "",
            "    \(url.absoluteString)",
            "",
        ]
        if let redirect, let port = redirect.port {
            lines.append(
                "The browser is sent back to \(redirect.scheme ?? "http")://\(redirect.host ?? "localhost"):\(port) on this machine. "
                    + "From another machine, forward that port first: ssh -L \(port):localhost:\(port) <this host>")
        }
        lines.append("Or sign in on any device with: msal login --device-code")
        return lines.joined(separator: "\n")
    }
}
