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
package struct TokenCacheIndexAccounts: Sequence, Sendable {
    package typealias Key = TokenCacheIndex.AccountKey
    package typealias Value = [TokenCacheIndex.Item]
    package typealias Element = (key: Key, value: Value)

    private var orderedKeys: [Key] = []
    private var values: [Value] = []
    private var positions: [Key: Int] = [:]

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
        positions.reserveCapacity(capacity)
    }

    /// The items of account `key`; setting `nil` removes the account.
    package subscript(key: Key) -> Value? {
        get { positions[key].map { values[$0] } }
        set {
            if let newValue {
                if let position = positions[key] {
                    values[position] = newValue
                } else {
                    append(key, newValue)
                }
            } else if let position = positions.removeValue(forKey: key) {
                let last = orderedKeys.count - 1
                if position != last {
                    orderedKeys.swapAt(position, last)
                    values.swapAt(position, last)
                    positions[orderedKeys[position]] = position
                }
                orderedKeys.removeLast()
                values.removeLast()
            }
        }
    }

    /// The items of account `key`, `defaultValue` when there is none (added by a change).
    package subscript(key: Key, default defaultValue: @autoclosure () -> Value) -> Value {
        get { positions[key].map { values[$0] } ?? defaultValue() }
        _modify {
            let position: Int
            if let known = positions[key] {
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
        positions[key] = orderedKeys.count
        orderedKeys.append(key)
        values.append(value)
    }

    /// Adds account `key`, which the table must not have, with `items` (building a table at once).
    package mutating func appendNew(_ key: Key, _ items: Value) {
        precondition(positions[key] == nil, "account added twice")
        append(key, items)
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
