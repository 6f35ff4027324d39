import MSALJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The bytes a cache document's entries keep their strings in, shared by every entry read from it.
///
/// Entries keep their string members as ``CacheSlice``s of these bytes until someone asks for a
/// value, so reading a 64 MB document creates no `String` per member and writing it back copies
/// unchanged members as they are.
///
/// Two kinds:
/// - **Owned** (the cache file is read straight into it): the reader moves each value it keeps to
///   the front of the buffer as it goes (in place: a value never moves past where it was read),
///   gives back the pages it has read past, and returns the rest at the end, so a loaded cache holds
///   its values (47 MB of a 64 MB document in MSAL for Python's form), not the document's names,
///   keys, punctuation and indentation, and loading never holds the file twice. Its own allocation
///   (`malloc`/`realloc`/`free`), freed in `deinit`.
/// - **Shared** (an app's serializer or a test hands over an array): the array itself, unchanged;
///   the slices point into the document as it is.
///
/// Either way the bytes are reached only inside ``withBytes(_:)``.
package final class CacheSource: @unchecked Sendable {
    // @unchecked Sendable: `base`, `capacity` and `count` change only while the file is read into an
    // owned source and while `CacheDocumentReader` compacts it, on one thread, before the document
    // that holds this source is returned to anyone; after that nothing writes them, so sharing is
    // read-only. A shared source never changes at all.
    private var base: UnsafeMutablePointer<UInt8>?
    private var capacity: Int
    private let shared: [UInt8]?
    /// The number of bytes.
    package private(set) var count: Int
    /// The size of the pages backing an owned buffer, where giving back memory is worth it: 2 MB
    /// for a large buffer backed by huge pages (``allocate(_:)``), else `0` (the system's page).
    package private(set) var releaseGranule = 0

    /// An empty owned source with room for `capacity` bytes.
    package init(capacity: Int) {
        self.capacity = max(capacity, 1)
        self.count = 0
        self.shared = nil
        (self.base, self.releaseGranule) = Self.allocate(self.capacity)
    }

    /// `capacity` bytes from `malloc`; a large buffer (a cache file of several megabytes) aligned to
    /// and backed by 2 MB pages where the system offers them (`MADV_HUGEPAGE`), so reading a 64 MB
    /// file into it takes 32 page faults instead of 16,000. `realloc` and `free` take it as any
    /// other allocation.
    private static func allocate(_ capacity: Int) -> (UnsafeMutablePointer<UInt8>?, granule: Int) {
        let hugePage = 2 << 20
        guard capacity >= 4 * hugePage else { return (malloc(capacity)?.assumingMemoryBound(to: UInt8.self), 0) }
        var pointer: UnsafeMutableRawPointer?
        guard posix_memalign(&pointer, hugePage, capacity) == 0, let pointer else { return (nil, 0) }
        // Advice only: without transparent huge pages the buffer is an ordinary one.
        let huge = madvise(pointer, capacity / hugePage * hugePage, MADV_HUGEPAGE) == 0
        return (pointer.assumingMemoryBound(to: UInt8.self), huge ? hugePage : 0)
    }

    /// A shared source: `bytes` as they are (no copy).
    package init(bytes: [UInt8]) {
        self.shared = bytes
        self.base = nil
        self.capacity = 0
        self.count = bytes.count
    }

    deinit {
        free(base)
    }

    /// Whether the reader may compact the bytes in place (an owned source).
    package var isOwned: Bool { shared == nil }

    /// Whether an owned source's allocation failed (it then has no bytes).
    package var allocationFailed: Bool { shared == nil && base == nil }

    /// Calls `body` with the bytes.
    @inline(__always)
    package func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if let shared { return try shared.withUnsafeBufferPointer(body) }
        return try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// Every byte, copied.
    package var allBytes: [UInt8] { withBytes { Array($0) } }

    // MARK: Filling and compacting an owned source (before it is shared)

    /// Appends up to `room` bytes that `fill` writes into free space, growing the buffer first if
    /// needed; `fill` returns how many it wrote. `false` when the buffer could not grow (or the
    /// source is shared).
    package func append(upTo room: Int, _ fill: (UnsafeMutableRawBufferPointer) -> Int) -> Bool {
        guard shared == nil else { return false }
        if count + room > capacity {
            guard let grown = realloc(base, count + room) else { return false }
            base = grown.assumingMemoryBound(to: UInt8.self)
            capacity = count + room
        }
        guard let base else { return false }
        let written = fill(UnsafeMutableRawBufferPointer(start: base + count, count: room))
        count += max(0, min(written, room))
        return true
    }

    /// Calls `body` with the bytes and, for an owned source, the same bytes writable (the reader
    /// compacts them in place); `nil` for a shared source.
    package func withBytesForReading<R>(_ body: (UnsafeBufferPointer<UInt8>, UnsafeMutablePointer<UInt8>?) -> R) -> R {
        if let shared { return shared.withUnsafeBufferPointer { body($0, nil) } }
        return body(UnsafeBufferPointer(start: base, count: count), base)
    }

    /// Keeps the first `newCount` bytes of an owned source and gives the rest of the allocation back.
    package func truncate(to newCount: Int) {
        guard shared == nil else { return }
        precondition(newCount >= 0 && newCount <= count, "truncate(to:) past the end")
        count = newCount
        guard capacity - newCount >= 4096, let shrunk = realloc(base, max(newCount, 1)) else { return }
        base = shrunk.assumingMemoryBound(to: UInt8.self)
        capacity = max(newCount, 1)
    }
}

/// A JSON string inside a ``CacheSource``: the bytes between its quotes, already validated by the
/// reader (RFC 8259 escapes, UTF-8).
package struct CacheSlice: Sendable, Hashable {
    /// How the bytes between the quotes relate to the string's UTF-8.
    package typealias Form = JSONStringForm

    package var start: Int32
    package var end: Int32
    package var form: Form

    package init(start: Int, end: Int, form: Form) {
        self.start = Int32(start)
        self.end = Int32(end)
        self.form = form
    }

    package init(start: Int32, end: Int32, form: Form) {
        self.start = start
        self.end = end
        self.form = form
    }

    /// The slice of a string the reader scanned.
    package init(_ token: JSONScanner.StringToken) {
        self.init(start: token.start, end: token.end, form: token.form)
    }

    package var range: Range<Int> { Int(start)..<Int(end) }

    /// The UTF-8 of the string.
    package func utf8(in source: CacheSource) -> [UInt8] {
        source.withBytes { bytes in
            let raw = UnsafeBufferPointer(rebasing: bytes[range])
            return form == .escaped ? JSONStringDecoding.unescape(raw) : Array(raw)
        }
    }

    /// The string.
    package func string(in source: CacheSource) -> String {
        source.withBytes { bytes in
            let raw = UnsafeBufferPointer(rebasing: bytes[range])
            return form == .escaped
                ? String(decoding: JSONStringDecoding.unescape(raw), as: UTF8.self) : String(decoding: raw, as: UTF8.self)
        }
    }
}
