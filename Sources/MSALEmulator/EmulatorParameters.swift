import MSALSupport

/// Parameters of a query string or an `application/x-www-form-urlencoded` body, in order.
struct EmulatorParameters: Sendable {
    /// The name/value pairs as sent (duplicates kept).
    var pairs: [(name: String, value: String)]

    init(pairs: [(name: String, value: String)] = []) {
        self.pairs = pairs
    }

    /// Parses `bytes`; `nil` for a bad percent escape or bytes that are not UTF-8.
    init?(parsing bytes: some Collection<UInt8>) {
        var pairs: [(name: String, value: String)] = []
        for part in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = part.firstIndex(of: UInt8(ascii: "="))
            let rawName = equals.map { part[part.startIndex..<$0] } ?? part[...]
            let rawValue = equals.map { part[part.index(after: $0)...] } ?? part[part.endIndex...]
            guard let name = PercentEncoding.decodeFormComponent(bytes: rawName),
                let value = PercentEncoding.decodeFormComponent(bytes: rawValue)
            else { return nil }
            pairs.append((name, value))
        }
        self.pairs = pairs
    }

    /// The first value of `name`.
    subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// The first value of `name`, `nil` when it is absent or empty.
    func nonEmpty(_ name: String) -> String? {
        guard let value = self[name], !value.isEmpty else { return nil }
        return value
    }

    /// The first parameter name that occurs more than once.
    var duplicatedName: String? {
        var seen = Set<String>()
        for pair in pairs where !seen.insert(pair.name).inserted {
            return pair.name
        }
        return nil
    }
}
