import Foundation
import MSAL

/// What `msal login` prints when no browser can be started (an SSH session, a container): the
/// sign-in URL to open by hand while the loopback listener waits, how to reach that listener from
/// another machine, and the device code alternative.
enum BrowserUnavailableNotice {
    /// The notice for `url`: the loopback listener's single-use start URL (or, from an app-supplied web UI,
    /// the authorization URL, whose `redirect_uri` names the listener).
    static func text(for url: URL, timeout: TimeInterval) -> String {
        let redirect: URL?
        if url.path.hasPrefix(LoopbackRedirectListener.startPathPrefix), url.scheme == "http" {
            redirect = url
        } else {
            redirect = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
                .first { $0.name == "redirect_uri" }?.value.flatMap(URL.init(string:))
        }
        var lines = [
            "No browser could be started. To sign in, open this URL in a browser within \(Int(timeout)) seconds:",
            "",
            "    \(url.absoluteString)",
            "",
        ]
        if let redirect, let port = redirect.port {
            lines.append(
                (redirect == url ? "This address is served once, on this machine, and leads to the sign-in page. " : "")
                    + "The browser is sent back to \(redirect.scheme ?? "http")://\(redirect.host ?? "localhost"):\(port) on this machine. "
                    + "From another machine, forward that port first: ssh -L \(port):localhost:\(port) <this host>")
        }
        lines.append("Or sign in on any device with: msal login --device-code")
        return lines.joined(separator: "\n")
    }
}
