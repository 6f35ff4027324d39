import Foundation
import MSALSupport

/// The last authority object resolved and its metadata, so the silent path's warm resolution is
/// an identity comparison and an expiry check instead of building and hashing a store key.
///
/// Holding the authority strongly makes the identity comparison safe (the object cannot be freed
/// and its address reused while it is remembered). The expiry is the store entry's.
package final class RecentAuthority: Sendable {
    private struct Hit {
        let authority: MSALAuthority
        let metadata: MSALAuthorityMetadata
        let expires: Date
    }

    private let hit = Mutex<Hit?>(nil)

    package init() {}

    /// The remembered metadata when `authority` is the remembered object and it has not expired.
    package func metadata(for authority: MSALAuthority, now: Date) -> MSALAuthorityMetadata? {
        hit.withLock { hit in
            guard let hit, hit.authority === authority, hit.expires > now else { return nil }
            return hit.metadata
        }
    }

    package func remember(_ authority: MSALAuthority, metadata: MSALAuthorityMetadata, expires: Date) {
        hit.withLock { $0 = Hit(authority: authority, metadata: metadata, expires: expires) }
    }
}
