import Foundation
import MSALJOSE
import MSALSupport

/// New correlation ids: random (version 4) UUIDs from OpenSSL's generator.
///
/// `UUID()` on Linux opens, reads and closes `/dev/urandom` for every value, which was a quarter of
/// a silent cache hit's time. Each ``TokenClient`` keeps one of these, which draws random bytes
/// for 64 ids at a time (each `RAND_bytes` call has a fixed cost of its own) and hands them out
/// under a lock.
package final class CorrelationID: Sendable {
    private static let idsPerDraw = 64

    private struct Pool {
        var bytes = [UInt8](repeating: 0, count: 16 * CorrelationID.idsPerDraw)
        var next = CorrelationID.idsPerDraw
    }

    private let pool = Mutex(Pool())

    package init() {}

    /// A new random UUID (RFC 9562 version 4).
    package func make() -> UUID {
        var id: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let drawn = pool.withLock { pool -> Bool in
            if pool.next == Self.idsPerDraw {
                guard Self.fill(&pool.bytes) else { return false }
                pool.next = 0
            }
            let offset = pool.next * 16
            pool.next += 1
            pool.bytes.withUnsafeBytes { source in
                withUnsafeMutableBytes(of: &id) { target in
                    target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<offset + 16]))
                }
            }
            return true
        }
        // The generator failed (it never does once seeded): the system's way still works.
        guard drawn else { return UUID() }
        return Self.uuid(fromRandom: id)
    }

    /// Fills `bytes` from OpenSSL's generator; `false` when it fails.
    private static func fill(_ bytes: inout [UInt8]) -> Bool {
        bytes.withUnsafeMutableBytes { buffer in
            do {
                try SecureRandom.fill(buffer)
                return true
            } catch {
                return false
            }
        }
    }

    /// A one-off random UUID, for callers without a client.
    package static func make() -> UUID {
        var id: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        do {
            try withUnsafeMutableBytes(of: &id) { buffer throws(JOSEError) in try SecureRandom.fill(buffer) }
        } catch {
            return UUID()
        }
        return uuid(fromRandom: id)
    }

    /// `bytes` with the version (4) and variant bits set.
    private static func uuid(fromRandom bytes: uuid_t) -> UUID {
        var bytes = bytes
        bytes.6 = (bytes.6 & 0x0F) | 0x40
        bytes.8 = (bytes.8 & 0x3F) | 0x80
        return UUID(uuid: bytes)
    }
}
