import Foundation
import MSALJOSE

/// New correlation ids: random (version 4) UUIDs from OpenSSL's generator.
///
/// `UUID()` on Linux opens, reads and closes `/dev/urandom` for every value, which was a quarter of
/// a silent cache hit's time; `RAND_bytes` draws from a generator already seeded in the process.
package enum CorrelationID {
    /// A new random UUID (RFC 9562 version 4).
    package static func make() -> UUID {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        do {
            try withUnsafeMutableBytes(of: &bytes) { buffer throws(JOSEError) in try SecureRandom.fill(buffer) }
        } catch {
            // The generator failed (it never does once seeded): the system's way still works.
            return UUID()
        }
        bytes.6 = (bytes.6 & 0x0F) | 0x40  // version 4
        bytes.8 = (bytes.8 & 0x3F) | 0x80  // RFC 9562 variant
        return UUID(uuid: bytes)
    }
}
