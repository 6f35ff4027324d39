import Foundation
import MSALSupport

/// Remembers requests the server asked not to repeat before a time (429, 5xx, `Retry-After`), and
/// answers repeats locally with the stored error marked ``MSALFailure/isThrottlingCacheHit``.
///
/// The key is the method, URL and body of the request; the correlation id header is not part of it.
package final class ThrottlingCache: Sendable {
    package struct Key: Hashable, Sendable {
        package var method: String
        package var url: String
        package var body: [UInt8]

        package init(_ request: MSALHTTPRequest) {
            method = request.method.rawValue
            url = request.url.absoluteString
            body = request.body ?? []
        }
    }

    private struct Entry {
        var error: MSALFailure
        var until: Date
    }

    private let entries = Mutex<[Key: Entry]>([:])
    private let capacity: Int

    package init(capacity: Int = 512) {
        self.capacity = capacity
    }

    /// Throttles `request` until `until`, answering repeats with `error`.
    package func record(_ request: MSALHTTPRequest, error: MSALFailure, until: Date) {
        let key = Key(request)
        entries.withLock { entries in
            if entries.count >= capacity, entries[key] == nil {
                let now = Date()
                entries = entries.filter { $0.value.until > now }
                if entries.count >= capacity, let oldest = entries.min(by: { $0.value.until < $1.value.until })?.key {
                    entries[oldest] = nil
                }
            }
            entries[key] = Entry(error: error, until: until)
        }
    }

    /// The error to answer `request` with, when it is throttled at `now`.
    package func throttledError(for request: MSALHTTPRequest, now: Date) -> MSALFailure? {
        let key = Key(request)
        return entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            guard entry.until > now else {
                entries[key] = nil
                return nil
            }
            return entry.error
        }
    }

    /// Forgets `request` (after a success).
    package func clear(_ request: MSALHTTPRequest) {
        let key = Key(request)
        _ = entries.withLock { $0.removeValue(forKey: key) }
    }
}
