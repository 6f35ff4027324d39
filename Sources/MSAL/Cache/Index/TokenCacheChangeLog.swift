/// Which accounts recent changes to a ``TokenCacheContents`` touched, so an account list built at
/// an earlier revision can be brought up to date by rebuilding only those accounts.
///
/// Keeps at most ``capacity`` changes; older ones, a new document and anything every account
/// depends on (alias groups, a client's family) make ``accounts(since:)`` answer `nil`: rebuild all.
package struct TokenCacheChangeLog: Sendable {
    /// The most changes remembered.
    package static let capacity = 256

    /// Changes up to this revision are not known one by one.
    package private(set) var forgottenThrough: Int
    private var changes: [(revision: Int, account: TokenCacheIndex.AccountKey)] = []

    package init(revision: Int) {
        forgottenThrough = revision
    }

    /// Records that the change making revision `revision` touched `account`.
    package mutating func record(_ account: TokenCacheIndex.AccountKey, revision: Int) {
        if changes.count == Self.capacity {
            let dropped = Self.capacity / 2
            forgottenThrough = changes[dropped - 1].revision
            changes.removeFirst(dropped)
        }
        changes.append((revision, account))
    }

    /// Records a change every account may depend on, made at revision `revision`.
    package mutating func recordEverything(revision: Int) {
        forgottenThrough = revision
        changes.removeAll(keepingCapacity: true)
    }

    /// The accounts changed after `revision` (possibly repeated); `nil` when that is not known.
    package func accounts(since revision: Int) -> [TokenCacheIndex.AccountKey]? {
        guard revision >= forgottenThrough else { return nil }
        var result: [TokenCacheIndex.AccountKey] = []
        for change in changes.reversed() {
            guard change.revision > revision else { break }
            result.append(change.account)
        }
        return result
    }
}
