/// Builds a ``TokenCacheIndex`` from many entries at once: a document being read, or a whole
/// document indexed again.
///
/// Adding entries one by one to ``TokenCacheIndex/accounts`` places each into its account's array as
/// it comes, and the sections of a document list the same accounts over and over (every access
/// token, then every refresh token, …): each placement makes a `String` of the home account id,
/// hashes it, and reaches an account array last written thousands of entries before. At 10,000
/// accounts that was a third of a load.
///
/// The builder instead appends each item to one array in the order it comes and numbers its account
/// through a table keyed by the account key's bytes (lower-cased as they are hashed and compared,
/// no `String`; the table and the keys' bytes stay in the processor's cache), then groups the items
/// by account in one pass at the end, moving them (no reference counting), and makes each account's
/// key and array once. The result, including the order of each account's items, is what
/// ``TokenCacheIndex/insert(key:entry:section:aliases:)`` gives for the same entries in the same
/// order.
struct TokenCacheIndexBuilder {
    private let aliases: CacheEnvironmentAliases
    private var memo = TokenCacheIndex.Memo()
    /// AppMetadata goes straight into the index (families); accounts are filled by ``finish()``.
    private var index = TokenCacheIndex()
    private let items = ItemStore()
    /// The account number of each item.
    private var accountOfItem: [Int32] = []
    private var table: AccountTable

    /// A builder expecting about `expectedAccounts` accounts.
    init(aliases: CacheEnvironmentAliases, expectedAccounts: Int = 0) {
        self.aliases = aliases
        table = AccountTable(expected: expectedAccounts)
        accountOfItem.reserveCapacity(expectedAccounts * 4)
        items.reserve(expectedAccounts * 4)
    }

    /// Adds `entry`, stored under `key` in `section`; an entry missing what its section needs is
    /// left out (as ``TokenCacheIndex/insert(key:entry:section:aliases:)`` does).
    mutating func add(key: String, entry: CacheEntry, section: CacheSection) {
        guard entry.opaque == nil else { return }
        if section == .appMetadata {
            index.insert(key: key, entry: entry, section: section, aliases: aliases, memo: &memo)
            return
        }
        guard let source = TokenCacheIndex.accountKeySource(entry, section: section, aliases: aliases, memo: &memo),
            let item = TokenCacheIndex.item(key: key, entry: entry, section: section, memo: &memo)
        else { return }
        let group = table.groupNumber(source.environment)
        let account: Int32
        if source.marker == .none {
            account =
                entry.withUTF8(source.field) { table.account(home: $0, group: group) }
                ?? table.account(home: UnsafeBufferPointer(start: nil, count: 0), group: group)
        } else {
            // An app or on-behalf-of token (few): the marker and the value as one key, so it is the
            // same key as a home account id of the same text, as in the index's `String` keys.
            var home = [source.marker.rawValue]
            _ = entry.withUTF8(source.field) { home.append(contentsOf: $0) }
            account = home.withUnsafeBufferPointer { table.account(home: $0, group: group) }
        }
        items.append(consume item)
        accountOfItem.append(account)
    }

    /// The index of everything added. The builder is empty afterwards.
    mutating func finish() -> TokenCacheIndex {
        let accountCount = table.count
        // Where each account's items start in the grouped order (a counting sort by account,
        // stable: each account's items keep the order they were added in).
        var starts = [Int32](repeating: 0, count: accountCount + 1)
        for account in accountOfItem { starts[Int(account) + 1] += 1 }
        for account in 0..<accountCount { starts[account + 1] += starts[account] }
        var order = [Int32](repeating: 0, count: accountOfItem.count)
        var next = starts
        for (position, account) in accountOfItem.enumerated() {
            order[Int(next[Int(account)])] = Int32(position)
            next[Int(account)] += 1
        }
        var result = index
        result.accounts.reserveCapacity(accountCount)
        for account in 0..<accountCount {
            let first = Int(starts[account])
            let count = Int(starts[account + 1]) - first
            let list = [TokenCacheIndex.Item](unsafeUninitializedCapacity: max(count, 4)) { buffer, initialized in
                for offset in 0..<count {
                    // Safe: `offset < count <= buffer.count`, and each item is moved out exactly once
                    // (`order` is a permutation of the items' positions).
                    (buffer.baseAddress! + offset).initialize(to: items.take(Int(order[first + offset])))
                }
                initialized = count
            }
            result.accounts.appendNew(table.key(account), list)
        }
        items.drained()
        accountOfItem = []
        index = TokenCacheIndex()
        return result
    }
}

extension TokenCacheIndexBuilder {
    /// The items added so far, in one allocation they are moved out of.
    private final class ItemStore {
        private var base: UnsafeMutablePointer<TokenCacheIndex.Item>?
        private var capacity = 0
        private var count = 0
        /// Whether every item was moved out (``take(_:)``), so there is nothing left to destroy.
        private var empty = false

        func reserve(_ wanted: Int) {
            guard wanted > capacity else { return }
            let grown = UnsafeMutablePointer<TokenCacheIndex.Item>.allocate(capacity: wanted)
            if let base {
                grown.moveInitialize(from: base, count: count)
                base.deallocate()
            }
            base = grown
            capacity = wanted
        }

        @inline(__always)
        func append(_ item: consuming TokenCacheIndex.Item) {
            if count == capacity { reserve(max(16, capacity * 2)) }
            // Safe: `count < capacity` after the reserve above.
            (base! + count).initialize(to: consume item)
            count += 1
        }

        /// Moves item `position` out; each is taken once, after which ``drained()`` is called.
        @inline(__always)
        func take(_ position: Int) -> TokenCacheIndex.Item {
            precondition(position >= 0 && position < count, "item position out of range")
            return (base! + position).move()
        }

        /// Every item was taken.
        func drained() {
            empty = true
        }

        deinit {
            if let base {
                if !empty { base.deinitialize(count: count) }
                base.deallocate()
            }
        }
    }

    /// Numbers accounts by the bytes of their key: the home account id lower-cased (ASCII letters),
    /// and the number of the alias group. Open addressing over a power-of-two
    /// table of 64-bit slots (32 bits of the key's hash, the account number plus one; zero is
    /// empty); the keys' bytes, lower-cased, in one byte array.
    private struct AccountTable {
        private var slots: [UInt64]
        private var mask: Int
        private var groups: [Int32] = []
        /// Where each account's lower-cased home bytes end in `bytes` (they start where the previous ones end).
        private var ends: [Int32] = []
        private var bytes: [UInt8] = []
        private var groupNames: [String] = []
        private let seed = CacheText.hashSeed

        init(expected: Int) {
            var size = 64
            while size < expected * 2 { size <<= 1 }
            slots = [UInt64](repeating: 0, count: size)
            mask = size - 1
            groups.reserveCapacity(expected)
            ends.reserveCapacity(expected)
            bytes.reserveCapacity(expected * 80)
        }

        var count: Int { ends.count }

        /// The number of alias group `name`.
        mutating func groupNumber(_ name: String) -> Int32 {
            for (number, known) in groupNames.enumerated() where known == name { return Int32(number) }
            groupNames.append(name)
            return Int32(groupNames.count - 1)
        }

        /// The number of the account with `home` (lower-cased here) in `group`, new if unseen.
        mutating func account(home: UnsafeBufferPointer<UInt8>, group: Int32) -> Int32 {
            let hash = CacheText.foldedHash(home, seed: seed ^ UInt64(UInt32(bitPattern: group)))
            let tag = hash >> 32
            var slot = Int(truncatingIfNeeded: hash) & mask
            while true {
                let value = slots[slot]
                if value == 0 { break }
                if value >> 32 == tag {
                    let account = Int(value & 0xFFFF_FFFF) - 1
                    if groups[account] == group, matches(account, home) { return Int32(account) }
                }
                slot = (slot + 1) & mask
            }
            let account = ends.count
            groups.append(group)
            for byte in home { bytes.append(byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte) }
            ends.append(Int32(bytes.count))
            slots[slot] = tag << 32 | UInt64(account + 1)
            if ends.count * 2 > slots.count { grow() }
            return Int32(account)
        }

        /// The index key of account `account`.
        func key(_ account: Int) -> TokenCacheIndex.AccountKey {
            let start = account == 0 ? 0 : Int(ends[account - 1])
            let home = bytes.withUnsafeBufferPointer {
                String(decoding: UnsafeBufferPointer(rebasing: $0[start..<Int(ends[account])]), as: UTF8.self)
            }
            return TokenCacheIndex.AccountKey(home: home, environment: groupNames[Int(groups[account])])
        }

        /// Whether account `account`'s stored bytes are `home` lower-cased.
        private func matches(_ account: Int, _ home: UnsafeBufferPointer<UInt8>) -> Bool {
            let start = account == 0 ? 0 : Int(ends[account - 1])
            let count = Int(ends[account]) - start
            guard count == home.count else { return false }
            guard count > 0, let incoming = home.baseAddress else { return true }
            return bytes.withUnsafeBufferPointer { stored in
                let stored = stored.baseAddress! + start
                var index = 0
                // `index + 8 <= count` bounds the loads of both (each has `count` bytes from its start).
                while index &+ 8 <= count {
                    let left = CacheText.foldedWord(UnsafeRawPointer(incoming + index).loadUnaligned(as: UInt64.self))
                    if left != UnsafeRawPointer(stored + index).loadUnaligned(as: UInt64.self) { return false }
                    index += 8
                }
                while index < count {
                    let byte = incoming[index]
                    if (byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte) != stored[index] { return false }
                    index += 1
                }
                return true
            }
        }

        private mutating func grow() {
            var grown = [UInt64](repeating: 0, count: slots.count * 2)
            let newMask = grown.count - 1
            for value in slots where value != 0 {
                // The slot's tag is the hash's high half; the low half, which picks the slot, is
                // computed again from the key.
                let account = Int(value & 0xFFFF_FFFF) - 1
                let start = account == 0 ? 0 : Int(ends[account - 1])
                let hash = bytes.withUnsafeBufferPointer {
                    CacheText.foldedHash(
                        UnsafeBufferPointer(rebasing: $0[start..<Int(ends[account])]),
                        seed: seed ^ UInt64(UInt32(bitPattern: groups[account])))
                }
                var slot = Int(truncatingIfNeeded: hash) & newMask
                while grown[slot] != 0 { slot = (slot + 1) & newMask }
                grown[slot] = value
            }
            slots = grown
            mask = newMask
        }
    }
}
