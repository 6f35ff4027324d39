/// The entry members the unified schema defines (and the ones other MSALs add). Members read or
/// created with one of these names carry it, so lookups on hot paths compare one byte instead of
/// a string, and the writer copies the quoted name instead of escaping it.
package enum CacheKnownField: UInt8, Sendable, CaseIterable {
    case homeAccountID, environment, credentialType, clientID, secret, realm, target
    case cachedAt, expiresOn, extendedExpiresOn, extExpiresOn, refreshOn, tokenType
    case keyID, familyID, lastModificationTime, localAccountID, username
    case authorityType, accountSource, name, givenName, familyName, middleName
    case clientInfo, alternativeAccountID, userAssertionHash, extCacheKey

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
        case .extCacheKey: "ext_cache_key"
        }
    }

    /// The member name, made once per field from ``staticName``.
    package var name: String { Self.names[Int(rawValue)] }

    /// Every field's name, by raw value.
    private static let names: [String] = allCases.map { field in
        field.staticName.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
    }

    /// The field named `name`, if the schema defines it.
    package init?(name: String) {
        var name = name
        guard let field = name.withUTF8({ CacheKnownField(utf8: $0) }) else { return nil }
        self = field
    }

    /// The field whose name has the UTF-8 `utf8`, if the schema defines it.
    package init?(utf8: UnsafeBufferPointer<UInt8>) {
        guard utf8.count >= 4, utf8.count <= 24 else { return nil }
        var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
        for (index, byte) in utf8.enumerated() {
            let bits = UInt64(byte) << (8 * (index % 8))
            switch index / 8 {
            case 0: words.0 |= bits
            case 1: words.1 |= bits
            default: words.2 |= bits
            }
        }
        guard let field = Self.match(length: utf8.count, words.0, words.1, words.2) else { return nil }
        self = field
    }

    /// The field whose name is the `length` bytes at `name`, when 24 bytes can be read there
    /// (the caller guarantees it): three loads and at most three comparisons.
    @inline(__always)
    static func match(length: Int, at name: UnsafeRawPointer) -> CacheKnownField? {
        guard length >= 4, length <= 24 else { return nil }
        @inline(__always)
        func mask(_ bytes: Int) -> UInt64 {
            bytes >= 8 ? ~0 : bytes <= 0 ? 0 : (1 << UInt64(8 * bytes)) &- 1
        }
        return match(
            length: length,
            UInt64(littleEndian: name.loadUnaligned(as: UInt64.self)) & mask(length),
            UInt64(littleEndian: name.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) & mask(length - 8),
            UInt64(littleEndian: name.loadUnaligned(fromByteOffset: 16, as: UInt64.self)) & mask(length - 16))
    }

    /// The field whose name has the UTF-8 `length` bytes in `words` (little-endian, zero past
    /// `length`), compared as three 64-bit words against the names' (generated from the list above).
    @inline(__always)
    static func match(length: Int, _ w0: UInt64, _ w1: UInt64, _ w2: UInt64) -> CacheKnownField? {
        switch length {
        case 4:
            if w0 == 0x00000000656D616E { return .name }  // name
            return nil
        case 5:
            if w0 == 0x0000006D6C616572 { return .realm }  // realm
            return nil
        case 6:
            if w0 == 0x0000746572636573 { return .secret }  // secret
            if w0 == 0x0000746567726174 { return .target }  // target
            if w0 == 0x000064695F79656B { return .keyID }  // key_id
            return nil
        case 8:
            if w0 == 0x656D616E72657375 { return .username }  // username
            return nil
        case 9:
            if w0 == 0x695F746E65696C63 && w1 == 0x0000000000000064 { return .clientID }  // client_id
            if w0 == 0x615F646568636163 && w1 == 0x0000000000000074 { return .cachedAt }  // cached_at
            if w0 == 0x695F796C696D6166 && w1 == 0x0000000000000064 { return .familyID }  // family_id
            return nil
        case 10:
            if w0 == 0x5F73657269707865 && w1 == 0x0000000000006E6F { return .expiresOn }  // expires_on
            if w0 == 0x5F68736572666572 && w1 == 0x0000000000006E6F { return .refreshOn }  // refresh_on
            if w0 == 0x79745F6E656B6F74 && w1 == 0x0000000000006570 { return .tokenType }  // token_type
            if w0 == 0x616E5F6E65766967 && w1 == 0x000000000000656D { return .givenName }  // given_name
            return nil
        case 11:
            if w0 == 0x6D6E6F7269766E65 && w1 == 0x0000000000746E65 { return .environment }  // environment
            if w0 == 0x6E5F796C696D6166 && w1 == 0x0000000000656D61 { return .familyName }  // family_name
            if w0 == 0x6E5F656C6464696D && w1 == 0x0000000000656D61 { return .middleName }  // middle_name
            if w0 == 0x695F746E65696C63 && w1 == 0x00000000006F666E { return .clientInfo }  // client_info
            return nil
        case 13:
            if w0 == 0x686361635F747865 && w1 == 0x00000079656B5F65 { return .extCacheKey }  // ext_cache_key
            return nil
        case 14:
            if w0 == 0x697078655F747865 && w1 == 0x00006E6F5F736572 { return .extExpiresOn }  // ext_expires_on
            if w0 == 0x7469726F68747561 && w1 == 0x0000657079745F79 { return .authorityType }  // authority_type
            if w0 == 0x5F746E756F636361 && w1 == 0x0000656372756F73 { return .accountSource }  // account_source
            return nil
        case 15:
            if w0 == 0x6363615F656D6F68 && w1 == 0x0064695F746E756F { return .homeAccountID }  // home_account_id
            if w0 == 0x69746E6564657263 && w1 == 0x00657079745F6C61 { return .credentialType }  // credential_type
            return nil
        case 16:
            if w0 == 0x63615F6C61636F6C && w1 == 0x64695F746E756F63 { return .localAccountID }  // local_account_id
            return nil
        case 19:
            // extended_expires_on
            if w0 == 0x6465646E65747865 && w1 == 0x736572697078655F && w2 == 0x00000000006E6F5F { return .extendedExpiresOn }
            // user_assertion_hash
            if w0 == 0x7373615F72657375 && w1 == 0x685F6E6F69747265 && w2 == 0x0000000000687361 { return .userAssertionHash }
            return nil
        case 22:
            // last_modification_time
            if w0 == 0x646F6D5F7473616C && w1 == 0x6F69746163696669 && w2 == 0x0000656D69745F6E { return .lastModificationTime }
            // alternative_account_id
            if w0 == 0x74616E7265746C61 && w1 == 0x6F6363615F657669 && w2 == 0x000064695F746E75 { return .alternativeAccountID }
            return nil
        default:
            return nil
        }
    }
}
