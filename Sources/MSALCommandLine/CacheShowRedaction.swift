import MSAL
import MSALJSON

/// What `msal cache show` prints of a cache entry's members: which are shown as they are and which
/// are redacted to a marker.
///
/// Credential entries (the sections AccessToken, RefreshToken and IdToken, and the entries of any
/// section the unified cache schema does not define) show only the members in
/// ``credentialAllowList``; every other member is redacted whatever its name or JSON type, so a
/// token kept under a name other than `secret` (by another library, a newer schema or a hand edit)
/// is never printed. Account and AppMetadata entries hold no credentials in the schema; all their
/// members are shown except those in ``alwaysRedacted``. A value that is not a string is never
/// printed, only its size. See `docs/token-cache.md` ("Command line").
enum CacheShowRedaction {
    /// The members of a credential entry shown as they are: the unified cache schema's fields that
    /// identify or time a credential and are not one (as MSAL for Python's `token_cache.py`, MSAL .NET
    /// and swift-msal write them). `user_assertion_hash` is a hash of an on-behalf-of assertion,
    /// which cannot be turned back into it; `key_id` names a proof-of-possession key, not the key.
    static let credentialAllowList: Set<String> = [
        "home_account_id", "environment", "credential_type", "client_id", "realm", "target",
        "cached_at", "expires_on", "extended_expires_on", "ext_expires_on", "refresh_on",
        "last_modification_time", "family_id", "token_type", "key_id", "user_assertion_hash",
    ]

    /// Members redacted even in the sections that hold no credentials (Account, AppMetadata).
    static let alwaysRedacted: Set<String> = ["secret", "client_info"]

    /// The marker shown instead of a redacted value of `byteCount` bytes (its UTF-8, or its JSON
    /// text when it is not a string).
    static func marker(byteCount: Int) -> String {
        "<redacted, \(byteCount) bytes>"
    }

    /// Whether entries of `section` are credential entries (`nil`: a section the schema does not define).
    static func isCredentialSection(_ section: CacheSection?) -> Bool {
        guard let section else { return true }
        return section.credentialType != nil
    }

    /// What is shown of the member `name` with `value` in an entry of `section` (`nil`: unknown section).
    static func shown(name: String, value: CacheFieldValue, in section: CacheSection?) -> String {
        let visible =
            isCredentialSection(section) ? credentialAllowList.contains(name) : !alwaysRedacted.contains(name)
        switch value {
        case .string(let text):
            return visible ? text : marker(byteCount: text.utf8.count)
        case .raw(let raw):
            return visible ? "<JSON, \(raw.count) bytes>" : marker(byteCount: raw.count)
        }
    }

    /// One entry's members as shown, in order.
    static func shownMembers(of entry: CacheEntry, in section: CacheSection?) -> [(name: String, value: String)] {
        entry.fields.map { field in (field.name, shown(name: field.name, value: field.value, in: section)) }
    }

    /// The contents of a section the schema does not define, as shown.
    enum OtherSection {
        /// An object: its entries by key, in document order, each member redacted as a credential entry's;
        /// a member value that is not an object is a single marker (`.string`).
        case entries([(key: String, value: OtherEntry)])
        /// Anything else (an array, a string, `null`, a section that cannot be read again): one marker.
        case redacted(String)
    }

    /// One entry of a section the schema does not define.
    enum OtherEntry {
        /// An object entry's members as shown.
        case members([(name: String, value: String)])
        /// A value that is not an object, redacted.
        case redacted(String)
    }

    /// The unknown section whose JSON text is `raw`, as shown.
    static func otherSection(_ raw: [UInt8]) -> OtherSection {
        let limits = TokenCacheDocument.readingLimits
        guard
            let document = try? JSONDocument(
                parsing: raw,
                limits: JSONLimits(
                    maxBytes: max(raw.count, 1), maxDepth: limits.maxDepth, maxValues: limits.maxValues, rejectDuplicateKeys: false)),
            document.root.kind == .object
        else {
            return .redacted(marker(byteCount: raw.count))
        }
        return .entries(
            document.root.members.map { key, value in
                let name = key.string ?? ""
                guard value.kind == .object else { return (name, .redacted(marker(byteCount: value.rawBytes.count))) }
                let members = value.members.map { member, content in
                    let fieldValue: CacheFieldValue =
                        content.kind == .string ? .string(content.string ?? "") : .raw(Array(content.rawBytes))
                    let memberName = member.string ?? ""
                    return (name: memberName, value: shown(name: memberName, value: fieldValue, in: nil))
                }
                return (name, .members(members))
            })
    }
}
