/// Each account's index items by account key (``TokenCacheIndex/accounts``), in the order the
/// accounts were added: a dictionary whose iteration walks two arrays.
///
/// An account list visits every account. Visited in a dictionary's order (by hash), each account's
/// key, items, entries and strings were somewhere else in memory from the previous one's. Visited
/// in the order they were added (for a document read, the order of the document, in which its
/// entries, their strings and the index's own arrays were also made), consecutive accounts are
/// mostly next to each other, which the processor reads ahead.
///
/// Removing an account moves the last one into its place.
///
/// Positions are found through an open-addressing table of 64-bit slots (32 bits of the key's
/// hash, the position plus one; zero is empty) hashed with ``CacheText/foldedHash(_:seed:)``, not
/// Swift's `Hasher`: its SipHash over a 73-byte home account id was most of the cost of placing
/// 10,000 accounts after a load, and of each lookup.
package struct TokenCacheIndexAccounts: Sequence, Sendable {
    package typealias Key = TokenCacheIndex.AccountKey
    package typealias Value = [TokenCacheIndex.Item]
    package typealias Element = (key: Key, value: Value)

    private var orderedKeys: [Key] = []
    private var values: [Value] = []
    /// Empty until the first account (an empty index allocates nothing).
    private var slots: [UInt64] = []
    private var seed: UInt64 { CacheText.hashSeed }

    package init() {}

    /// The number of accounts.
    package var count: Int { orderedKeys.count }

    /// Whether there are none.
    package var isEmpty: Bool { orderedKeys.isEmpty }

    /// The account keys, in order.
    package var keys: [Key] { orderedKeys }

    /// Makes room for `capacity` accounts.
    package mutating func reserveCapacity(_ capacity: Int) {
        orderedKeys.reserveCapacity(capacity)
        values.reserveCapacity(capacity)
        if capacity * 2 > slots.count { rehash(minimumSlots: capacity * 2) }
    }

    /// The items of account `key`; setting `nil` removes the account.
    package subscript(key: Key) -> Value? {
        get { find(key).position.map { values[$0] } }
        set {
            let (position, slot) = find(key)
            if let newValue {
                if let position {
                    values[position] = newValue
                } else {
                    append(key, newValue)
                }
            } else if let position {
                removeSlot(slot)
                let last = orderedKeys.count - 1
                if position != last {
                    // The last account moves into the removed one's place; its slot says so.
                    let moved = find(orderedKeys[last]).slot
                    slots[moved] = slots[moved] & ~0xFFFF_FFFF | UInt64(position + 1)
                    orderedKeys.swapAt(position, last)
                    values.swapAt(position, last)
                }
                orderedKeys.removeLast()
                values.removeLast()
            }
        }
    }

    /// The items of account `key`, `defaultValue` when there is none (added by a change).
    package subscript(key: Key, default defaultValue: @autoclosure () -> Value) -> Value {
        get { find(key).position.map { values[$0] } ?? defaultValue() }
        _modify {
            let position: Int
            if let known = find(key).position {
                position = known
            } else {
                position = orderedKeys.count
                append(key, defaultValue())
            }
            yield &values[position]
        }
    }

    /// Adds an account the table does not have.
    private mutating func append(_ key: Key, _ value: Value) {
        if (orderedKeys.count + 1) * 2 > slots.count { rehash(minimumSlots: (orderedKeys.count + 1) * 2) }
        let hash = hash(key)
        var slot = Int(truncatingIfNeeded: hash) & (slots.count - 1)
        while slots[slot] != 0 { slot = (slot + 1) & (slots.count - 1) }
        slots[slot] = (hash >> 32) << 32 | UInt64(orderedKeys.count + 1)
        orderedKeys.append(key)
        values.append(value)
    }

    /// Adds account `key`, which the table must not have, with `items` (building a table at once).
    package mutating func appendNew(_ key: Key, _ items: Value) {
        precondition(find(key).position == nil, "account added twice")
        append(key, items)
    }

    private func hash(_ key: Key) -> UInt64 {
        var home = key.home
        var environment = key.environment
        let cloud = environment.withUTF8 { CacheText.foldedHash($0, seed: seed) }
        return home.withUTF8 { CacheText.foldedHash($0, seed: cloud) }
    }

    /// Where `key` is: its position (`nil` when absent) and its slot (when absent, the empty slot
    /// that ended the probe).
    private func find(_ key: Key) -> (position: Int?, slot: Int) {
        guard !slots.isEmpty else { return (nil, 0) }
        let hash = hash(key)
        let mask = slots.count - 1
        let tag = hash >> 32
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let value = slots[slot]
            if value == 0 { return (nil, slot) }
            if value >> 32 == tag {
                let position = Int(value & 0xFFFF_FFFF) - 1
                if orderedKeys[position] == key { return (position, slot) }
            }
            slot = (slot + 1) & mask
        }
    }

    /// Empties `slot`, moving back the entries after it that probed past it (linear probing keeps
    /// every key reachable from its home slot without markers).
    private mutating func removeSlot(_ slot: Int) {
        let mask = slots.count - 1
        var hole = slot
        var next = (slot + 1) & mask
        while slots[next] != 0 {
            let position = Int(slots[next] & 0xFFFF_FFFF) - 1
            let home = Int(truncatingIfNeeded: hash(orderedKeys[position])) & mask
            // Move the entry into the hole when its home slot is not between the hole and it.
            let distanceToHole = (hole - home) & mask
            let distanceToNext = (next - home) & mask
            if distanceToHole < distanceToNext {
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = 0
    }

    /// Makes a table of at least `minimumSlots` slots (a power of two) and places every account again.
    private mutating func rehash(minimumSlots: Int) {
        var size = Swift.max(slots.count, 16)
        while size < minimumSlots { size <<= 1 }
        slots = [UInt64](repeating: 0, count: size)
        for position in orderedKeys.indices {
            let hash = hash(orderedKeys[position])
            var slot = Int(truncatingIfNeeded: hash) & (size - 1)
            while slots[slot] != 0 { slot = (slot + 1) & (size - 1) }
            slots[slot] = (hash >> 32) << 32 | UInt64(position + 1)
        }
    }

    /// The accounts in order.
    package struct Iterator: IteratorProtocol {
        fileprivate let keys: [Key]
        fileprivate let values: [Value]
        fileprivate var position = 0

        package mutating func next() -> Element? {
            guard position < keys.count else { return nil }
            defer { position += 1 }
            return (keys[position], values[position])
        }
    }

    package func makeIterator() -> Iterator {
        Iterator(keys: orderedKeys, values: values)
    }

    package var underestimatedCount: Int { count }
}
