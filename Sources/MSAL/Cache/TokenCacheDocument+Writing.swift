import MSALJOSE

extension TokenCacheDocument {
    /// Serializes the document: the five sections (always present, possibly empty) with keys sorted,
    /// then the unknown top-level members as they were read. Every value is a string except the raw
    /// values of unknown fields. One entry per line, so the file diffs and greps well.
    package func serialized() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(estimatedSize)
        output.append(UInt8(ascii: "{"))
        var firstMember = true
        for section in CacheSection.allCases {
            if !firstMember { output.append(UInt8(ascii: ",")) }
            firstMember = false
            output.append(contentsOf: "\n  ".utf8)
            JSONStringEncoding.appendQuoted(section.name, to: &output)
            output.append(contentsOf: ": {".utf8)
            let entries = sections[section.rawValue]
            let keys = entries.keys.sorted()
            for (offset, key) in keys.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                output.append(contentsOf: "\n    ".utf8)
                let entry = entries[key]!
                JSONStringEncoding.appendQuoted(Self.writtenKey(key, entry: entry, section: section), to: &output)
                output.append(contentsOf: ": ".utf8)
                Self.append(entry, to: &output)
            }
            if !keys.isEmpty { output.append(contentsOf: "\n  ".utf8) }
            output.append(UInt8(ascii: "}"))
        }
        for member in unknownMembers {
            output.append(contentsOf: ",\n  ".utf8)
            JSONStringEncoding.appendQuoted(member.name, to: &output)
            output.append(contentsOf: ": ".utf8)
            output.append(contentsOf: member.raw)
        }
        output.append(contentsOf: "\n}\n".utf8)
        return output
    }

    /// AppMetadata keys are written `appmetadata-<environment>-<client_id>` with the client id as
    /// the entry has it; every other key lower-case.
    private static func writtenKey(_ key: String, entry: CacheEntry, section: CacheSection) -> String {
        guard section == .appMetadata, let environment = entry["environment"], let clientID = entry["client_id"],
            CacheKey.appMetadata(environment: environment, clientID: clientID).lowercased() == key
        else { return key }
        return CacheKey.appMetadata(environment: environment, clientID: clientID)
    }

    private static func append(_ entry: CacheEntry, to output: inout [UInt8]) {
        if let opaque = entry.opaque {
            output.append(contentsOf: opaque)
            return
        }
        output.append(UInt8(ascii: "{"))
        for (offset, field) in entry.fields.enumerated() {
            if offset > 0 { output.append(contentsOf: ", ".utf8) }
            JSONStringEncoding.appendQuoted(field.name, to: &output)
            output.append(contentsOf: ": ".utf8)
            switch field.value {
            case .string(let text): JSONStringEncoding.appendQuoted(text, to: &output)
            case .raw(let raw): output.append(contentsOf: raw)
            }
        }
        output.append(UInt8(ascii: "}"))
    }

    /// A size guess that avoids regrowing the output buffer for typical entries.
    private var estimatedSize: Int {
        var total = 256
        for entries in sections {
            for (key, entry) in entries {
                total += key.utf8.count + 16
                for field in entry.fields {
                    total += field.name.utf8.count + 8
                    switch field.value {
                    case .string(let text): total += text.utf8.count
                    case .raw(let raw): total += raw.count
                    }
                }
                total += entry.opaque?.count ?? 0
            }
        }
        return total + unknownMembers.reduce(0) { $0 + $1.raw.count + $1.name.utf8.count + 8 }
    }
}
