import Foundation
import MSALSupport

/// The last `DPoP-Nonce` each server gave (RFC 9449 §8): the next proof to that server carries
/// it. Kept per origin (scheme, host and port), for a bounded number of servers.
package final class DPoPNonces: Sendable {
    /// How many servers' nonces are kept; the oldest is forgotten first.
    package static let capacity = 32
    /// The longest nonce kept: a longer one is a server's fault, and would be refused in a proof.
    package static let maximumLength = 1024

    private let nonces = Mutex<[(origin: String, nonce: String)]>([])

    package init() {}

    /// The nonce `origin` gave last; `nil` when it gave none.
    package func nonce(for origin: String) -> String? {
        nonces.withLock { list in list.last { $0.origin == origin }?.nonce }
    }

    /// Remembers `nonce` for `origin` when it is a nonce a proof may carry: 1 to
    /// ``maximumLength`` printable ASCII characters without quotes or backslashes (RFC 9449 §8.1's
    /// `NQCHAR`); anything else is ignored.
    package func remember(_ nonce: String, for origin: String) {
        guard Self.isValid(nonce) else { return }
        nonces.withLock { list in
            list.removeAll { $0.origin == origin }
            if list.count >= Self.capacity { list.removeFirst() }
            list.append((origin, nonce))
        }
    }

    /// Whether `nonce` is RFC 9449's `1*NQCHAR`.
    package static func isValid(_ nonce: String) -> Bool {
        !nonce.utf8.isEmpty && nonce.utf8.count <= maximumLength
            && nonce.utf8.allSatisfy { $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }
    }

    /// The origin of `url`, as nonces are kept: `scheme://host[:port]`, lower case, default port left out.
    package static func origin(_ url: URL) -> String {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false), let scheme = components.scheme?.lowercased(),
            let host = DPoPProof.hostAndPort(components)
        else { return url.absoluteString }
        return scheme + "://" + host
    }
}
