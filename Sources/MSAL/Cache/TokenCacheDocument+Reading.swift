import MSALJOSE

extension TokenCacheDocument {
    /// Limits for reading a cache document: up to 512 MiB (a 10,000-account cache is about 64 MB),
    /// nesting 64 deep (the schema needs 3; unknown fields get room), duplicate names tolerated
    /// (the last one wins, as in the other MSALs' JSON readers).
    package static let readingLimits = JSONLimits(
        maxBytes: 512 << 20, maxDepth: 64, maxValues: 64_000_000, rejectDuplicateKeys: false)

    /// Members whose values are epoch seconds or small integers: accepted as JSON numbers on read
    /// (some writers emit numbers, early MSAL for Python even fractions, which are truncated) and
    /// always written back as strings.
    private static let numericFields: Set<String> = [
        "cached_at", "expires_on", "extended_expires_on", "ext_expires_on", "refresh_on",
        "last_modification_time", "family_id",
    ]

    /// Reads a cache document.
    ///
    /// Empty input (or only whitespace) is an empty document. A leading UTF-8 byte-order mark is
    /// skipped. Known sections must be JSON objects; an entry in them that is not an object is kept
    /// as it is but never used. Keys are matched case-insensitively: when a legacy mixed-case key and
    /// its lower-case form are both present, the lower-case entry wins.
    ///
    /// - Throws: ``MSALError`` with ``MSALInternalError/cacheCorrupt`` (not JSON, not an object, a
    ///   known section that is not an object) or ``MSALInternalError/cacheTooLarge``.
    package init(parsing bytes: [UInt8]) throws(MSALError) {
        self.init()
        var start = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }
        let content = start == 0 ? bytes : Array(bytes[start...])
        if content.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return }
        let document: JSONDocument
        do throws(JOSEError) {
            document = try JSONDocument(parsing: content, limits: Self.readingLimits)
        } catch {
            let code: MSALInternalError = error.code == .limitExceeded ? .cacheTooLarge : .cacheCorrupt
            throw MSALError(.internal, internalCode: code, message: "The token cache is not valid JSON: \(error.message)")
        }
        let root = document.root
        guard root.kind == .object else {
            throw MSALError(.internal, internalCode: .cacheCorrupt, message: "The token cache is not a JSON object")
        }
        for (name, value) in root.members {
            let sectionName = name.string ?? ""
            guard let section = CacheSection(name: sectionName) else {
                unknownMembers.removeAll { $0.name == sectionName }
                unknownMembers.append(RawMember(name: sectionName, raw: Array(Self.rawJSON(value))))
                continue
            }
            guard value.kind == .object else {
                throw MSALError(
                    .internal, internalCode: .cacheCorrupt,
                    message: "The token cache section \(sectionName) is not a JSON object")
            }
            var entries = self.sections[section.rawValue]
            var exactKeys = Set<String>()
            entries.reserveCapacity(value.count)
            for (keyValue, entryValue) in value.members {
                let original = keyValue.string ?? ""
                let key = CacheText.lowercased(original)
                let isExact = key == original
                if entries[key] != nil, exactKeys.contains(key), !isExact {
                    continue  // a legacy spelling never replaces the current one
                }
                if isExact { exactKeys.insert(key) }
                entries[key] = Self.entry(entryValue)
            }
            self.sections[section.rawValue] = entries
        }
    }

    /// The bytes of `value` as written, strings with their quotes.
    private static func rawJSON(_ value: JSONValue) -> ArraySlice<UInt8> {
        let raw = value.rawBytes
        guard value.kind == .string else { return raw }
        let bytes = value.document.bytes
        return bytes[(raw.startIndex - 1)..<(raw.endIndex + 1)]
    }

    private static func entry(_ value: JSONValue) -> CacheEntry {
        guard value.kind == .object else {
            return CacheEntry(opaque: Array(rawJSON(value)))
        }
        var fields: [CacheField] = []
        fields.reserveCapacity(value.count)
        for (nameValue, member) in value.members {
            let name = CacheFieldNames.name(nameValue)
            let fieldValue: CacheFieldValue
            switch member.kind {
            case .string:
                fieldValue = .string(member.string ?? "")
            case .number where numericFields.contains(name):
                if let integer = member.int64 {
                    fieldValue = .string(String(integer))
                } else if let double = member.double, double.isFinite, abs(double) < 1e15 {
                    fieldValue = .string(String(Int64(double.rounded(.down))))  // MSAL for Python once wrote floats
                } else {
                    fieldValue = .raw(Array(member.rawBytes))
                }
            case .array where name == "target" && member.elements.allSatisfy({ $0.kind == .string }):
                // Early MSAL for Python wrote the target as a list of scopes.
                fieldValue = .string(member.elements.compactMap(\.string).joined(separator: " "))
            default:
                fieldValue = .raw(Array(rawJSON(member)))
            }
            // A duplicate member is kept in order; lookups take the last one, as JSON readers do.
            fields.append(CacheField(name: name, value: fieldValue))
        }
        return CacheEntry(fields: fields)
    }
}

/// Member names of cache entries, shared instead of allocated per entry.
enum CacheFieldNames {
    fileprivate static let known: [String] = [
        "home_account_id", "environment", "credential_type", "client_id", "secret", "realm", "target",
        "cached_at", "expires_on", "extended_expires_on", "ext_expires_on", "refresh_on", "token_type",
        "key_id", "family_id", "last_modification_time", "local_account_id", "username",
        "authority_type", "account_source", "name", "given_name", "family_name", "middle_name",
        "client_info", "alternative_account_id", "user_assertion_hash",
    ]

    /// Known names by UTF-8 length, so a key is compared with one to three candidates.
    private static let byLength: [[String]] = {
        var table = [[String]](repeating: [], count: 32)
        for name in known { table[name.utf8.count].append(name) }
        return table
    }()

    /// The name of a member key: one of the known names when it is one (no allocation), else decoded.
    static func name(_ key: JSONValue) -> String {
        let length = key.rawBytes.count
        if length < byLength.count {
            for candidate in byLength[length] where key.isString(candidate) { return candidate }
        }
        return key.string ?? ""
    }
}

extension CacheFieldNames {
    /// Whether `name` is a member the unified schema defines.
    static func isKnown(_ name: String) -> Bool {
        knownSet.contains(name)
    }

    private static let knownSet: Set<String> = Set(known)
}
