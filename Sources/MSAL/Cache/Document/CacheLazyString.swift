import MSALSupport

/// A string member's value made into a `String` the first time it is asked for, then shared by
/// everyone who asks (an ID token, which every account list and cache hit hands out).
///
/// Reading a 10,000-account document made 10,000 ID tokens of about 1.2 KB into strings, 12 MB
/// copied while loading for a call that may never hand one out (a silent request answers with one
/// account's). Now the first account list or cache hit that needs one makes it. The string is kept
/// in this object itself (not in one more object behind it), so an account list reaching it after
/// the first makes one step fewer through memory.
package final class CacheLazyString: @unchecked Sendable {
    // @unchecked Sendable: `stored` is written once, by the one thread that moves `state` from 0
    // to 1, before it stores 2 with release ordering; it is read only after a load of 2 with
    // acquire ordering. Every other property is a `let`.
    private let source: CacheSource?
    private let slice: CacheSlice
    /// 0: not made; 1: being stored; 2: `stored` holds the string.
    private let state: Atomic<Int>
    private nonisolated(unsafe) var stored: String

    /// `value`, already a string.
    package init(_ value: String) {
        source = nil
        slice = CacheSlice(start: 0, end: 0, form: .clean)
        stored = value
        state = Atomic(2)
    }

    /// The string `slice` of `source` denotes.
    package init(source: CacheSource, slice: CacheSlice) {
        self.source = source
        self.slice = slice
        stored = ""
        state = Atomic(0)
    }

    /// The string, made once. A thread that asks while another is storing it makes its own copy
    /// (equal) rather than wait.
    package var value: String {
        if state.load(ordering: .acquiring) == 2 { return stored }
        // Not stored yet, so made from a document: `source` is set.
        let made = slice.string(in: source!)
        if state.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged {
            stored = made
            state.store(2, ordering: .releasing)
        }
        return made
    }
}
