/// The entry members the unified schema defines (and the ones other MSALs add). Members read or
/// created with one of these names carry it, so lookups on hot paths compare one byte instead of
/// a string, and the writer copies the quoted name instead of escaping it.
package enum CacheKnownField: UInt8, Sendable, CaseIterable {
    case homeAccountID, environment, credentialType, clientID, secret, realm, target
    case cachedAt, expiresOn, extendedExpiresOn, extExpiresOn, refreshOn, tokenType
    case keyID, familyID, lastModificationTime, localAccountID, username
    case authorityType, accountSource, name, givenName, familyName, middleName
    case clientInfo, alternativeAccountID, userAssertionHash

    /// The member name as a literal (its UTF-8 is static, so matching bytes allocates nothing).
    package var staticName: StaticString {
        switch self {
        case .homeAccountID: "home_account_id"
        case .environment: "environment"
        case .credentialType: "credential_type"
        case .clientID: "client_id"
        case .secret: "secret"
        case .realm: "realm"
        case .target: "target"
        case .cachedAt: "cached_at"
        case .expiresOn: "expires_on"
        case .extendedExpiresOn: "extended_expires_on"
        case .extExpiresOn: "ext_expires_on"
        case .refreshOn: "refresh_on"
        case .tokenType: "token_type"
        case .keyID: "key_id"
        case .familyID: "family_id"
        case .lastModificationTime: "last_modification_time"
        case .localAccountID: "local_account_id"
        case .username: "username"
        case .authorityType: "authority_type"
        case .accountSource: "account_source"
        case .name: "name"
        case .givenName: "given_name"
        case .familyName: "family_name"
        case .middleName: "middle_name"
        case .clientInfo: "client_info"
        case .alternativeAccountID: "alternative_account_id"
        case .userAssertionHash: "user_assertion_hash"
        }
    }

    /// The member name (a literal: no allocation, no reference counting).
    package var name: String {
        switch self {
        case .homeAccountID: "home_account_id"
        case .environment: "environment"
        case .credentialType: "credential_type"
        case .clientID: "client_id"
        case .secret: "secret"
        case .realm: "realm"
        case .target: "target"
        case .cachedAt: "cached_at"
        case .expiresOn: "expires_on"
        case .extendedExpiresOn: "extended_expires_on"
        case .extExpiresOn: "ext_expires_on"
        case .refreshOn: "refresh_on"
        case .tokenType: "token_type"
        case .keyID: "key_id"
        case .familyID: "family_id"
        case .lastModificationTime: "last_modification_time"
        case .localAccountID: "local_account_id"
        case .username: "username"
        case .authorityType: "authority_type"
        case .accountSource: "account_source"
        case .name: "name"
        case .givenName: "given_name"
        case .familyName: "family_name"
        case .middleName: "middle_name"
        case .clientInfo: "client_info"
        case .alternativeAccountID: "alternative_account_id"
        case .userAssertionHash: "user_assertion_hash"
        }
    }

    /// `"name": ` as the writer emits it.
    package var quotedName: StaticString {
        switch self {
        case .homeAccountID: "\"home_account_id\": "
        case .environment: "\"environment\": "
        case .credentialType: "\"credential_type\": "
        case .clientID: "\"client_id\": "
        case .secret: "\"secret\": "
        case .realm: "\"realm\": "
        case .target: "\"target\": "
        case .cachedAt: "\"cached_at\": "
        case .expiresOn: "\"expires_on\": "
        case .extendedExpiresOn: "\"extended_expires_on\": "
        case .extExpiresOn: "\"ext_expires_on\": "
        case .refreshOn: "\"refresh_on\": "
        case .tokenType: "\"token_type\": "
        case .keyID: "\"key_id\": "
        case .familyID: "\"family_id\": "
        case .lastModificationTime: "\"last_modification_time\": "
        case .localAccountID: "\"local_account_id\": "
        case .username: "\"username\": "
        case .authorityType: "\"authority_type\": "
        case .accountSource: "\"account_source\": "
        case .name: "\"name\": "
        case .givenName: "\"given_name\": "
        case .familyName: "\"family_name\": "
        case .middleName: "\"middle_name\": "
        case .clientInfo: "\"client_info\": "
        case .alternativeAccountID: "\"alternative_account_id\": "
        case .userAssertionHash: "\"user_assertion_hash\": "
        }
    }

    /// The field named `name`, if the schema defines it.
    package init?(name: String) {
        var name = name
        guard let field = name.withUTF8({ CacheKnownField(utf8: $0) }) else { return nil }
        self = field
    }

    /// The field whose name has the UTF-8 `utf8`, if the schema defines it: one or two candidates
    /// by length and first byte, then a byte comparison.
    @inline(__always)
    package init?(utf8: UnsafeBufferPointer<UInt8>) {
        guard utf8.count >= 4 else { return nil }
        let candidate: CacheKnownField
        switch (utf8.count, utf8[0]) {
        case (4, _): candidate = .name
        case (5, _): candidate = .realm
        case (6, UInt8(ascii: "s")): candidate = .secret
        case (6, UInt8(ascii: "t")): candidate = .target
        case (6, UInt8(ascii: "k")): candidate = .keyID
        case (8, _): candidate = .username
        case (9, UInt8(ascii: "c")):
            candidate = utf8[1] == UInt8(ascii: "a") ? .cachedAt : .clientID
        case (9, UInt8(ascii: "f")): candidate = .familyID
        case (10, UInt8(ascii: "e")): candidate = .expiresOn
        case (10, UInt8(ascii: "r")): candidate = .refreshOn
        case (10, UInt8(ascii: "t")): candidate = .tokenType
        case (10, UInt8(ascii: "g")): candidate = .givenName
        case (11, UInt8(ascii: "e")): candidate = .environment
        case (11, UInt8(ascii: "f")): candidate = .familyName
        case (11, UInt8(ascii: "m")): candidate = .middleName
        case (11, UInt8(ascii: "c")): candidate = .clientInfo
        case (14, UInt8(ascii: "e")): candidate = .extExpiresOn
        case (14, UInt8(ascii: "a")):
            candidate = utf8[1] == UInt8(ascii: "u") ? .authorityType : .accountSource
        case (15, UInt8(ascii: "h")): candidate = .homeAccountID
        case (15, UInt8(ascii: "c")): candidate = .credentialType
        case (16, _): candidate = .localAccountID
        case (19, UInt8(ascii: "e")): candidate = .extendedExpiresOn
        case (19, UInt8(ascii: "u")): candidate = .userAssertionHash
        case (22, UInt8(ascii: "l")): candidate = .lastModificationTime
        case (22, UInt8(ascii: "a")): candidate = .alternativeAccountID
        default: return nil
        }
        let expected = candidate.staticName
        guard CacheText.equal(UnsafeBufferPointer(start: expected.utf8Start, count: expected.utf8CodeUnitCount), utf8) else { return nil }
        self = candidate
    }
}
