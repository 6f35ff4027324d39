// Compiled only with the package trait TestEntryPoints, which FuzzTesting enables (see Package.swift).
#if MSAL_TEST_ENTRY_POINTS
import MSALJOSE
import MSALJSON

@_spi(Fuzzing) extension MSALFuzzingSupport {
    /// A cache document and its index (`TokenCacheContents`).
    public final class LoadedCache: Sendable {
        let contents: TokenCacheContents

        init(_ contents: TokenCacheContents) {
            self.contents = contents
        }

        /// The document as the SDK writes it back.
        public var serialized: [UInt8] { contents.document.serialized() }

        /// The number of entries in the known sections.
        public var entryCount: Int { contents.document.entryCount }

        /// Whether both hold the same document (entries by key and unknown top-level members).
        public func hasSameDocument(as other: LoadedCache) -> Bool {
            contents.document == other.contents.document
        }

        /// The index as sorted lines, one per account entry and per client family: equal for equal
        /// indexes whatever order their entries were added in.
        public var indexSummary: [String] { Self.summary(contents.index) }

        /// ``indexSummary`` of an index built from scratch from the document as it is now.
        public var rebuiltIndexSummary: [String] {
            Self.summary(TokenCacheIndex(document: contents.document, aliases: contents.aliases))
        }

        private static func summary(_ index: TokenCacheIndex) -> [String] {
            var lines: [String] = []
            for (account, items) in index.accounts {
                for item in items {
                    lines.append(
                        "\(account.home)|\(account.environment)|\(item.section)|\(item.client)|\(item.realm)|\(item.key)|"
                            + "\(item.isFamily)|\(item.scopes.sorted())|\(item.target)")
                }
            }
            for (client, family) in index.familyOfClient {
                lines.append("family|\(client)|\(family)")
            }
            return lines.sorted()
        }

        /// Runs the read paths of the SDK over every account the index holds, for each client it
        /// names: account lists, the silent access-token lookup, the refresh and ID token lookups.
        /// Returns how many lookups found something.
        public func exerciseQueries(now: Int64) -> Int {
            var found = 0
            var clients: Set<String> = []
            var accounts: [(home: String, environment: String, realms: [String])] = []
            for (_, items) in contents.index.accounts {
                guard let first = items.first, let home = first.entry["home_account_id"], let environment = first.entry["environment"]
                else {
                    continue
                }
                var realms: [String] = []
                for item in items {
                    if !item.client.isEmpty, !item.isFamily { clients.insert(item.client) }
                    if !item.realm.isEmpty, !realms.contains(item.realm) { realms.append(item.realm) }
                }
                accounts.append((home, environment, realms))
            }
            for client in clients.sorted().prefix(8) {
                found += contents.accounts(clientID: client, environment: nil, signedInOnly: false).count
                found += contents.accounts(clientID: client, environment: "login.microsoftonline.com", signedInOnly: true).count
                for account in accounts.prefix(16) {
                    let scopes = TokenCacheContents.lookupScopes(["user.read"])
                    if contents.accessTokenAndIDToken(
                        homeAccountID: account.home, environment: account.environment, clientID: client, realms: account.realms,
                        scopes: scopes, now: now, expiryBuffer: 300) != nil
                    {
                        found += 1
                    }
                    if contents.refreshToken(homeAccountID: account.home, environment: account.environment, clientID: client) != nil {
                        found += 1
                    }
                    for realm in account.realms.prefix(4)
                    where contents.idToken(homeAccountID: account.home, environment: account.environment, clientID: client, realm: realm)
                        != nil
                    {
                        found += 1
                    }
                }
            }
            return found
        }

        /// A copy with a new token response for `clientID` saved for the first account the index holds
        /// (in sorted order) whose home account id has the `uid.utid` form, as a silent refresh saves
        /// one: its entries are merged with the ones already there. `nil` when there is no such account.
        public func savingTokenResponse(clientID: String, now: Int64) -> LoadedCache? {
            let candidates = contents.index.accounts.keys.sorted { ($0.home, $0.environment) < ($1.home, $1.environment) }
            for key in candidates {
                guard let items = contents.index.accounts[key], let first = items.first,
                    let home = first.entry["home_account_id"], let environment = first.entry["environment"],
                    let dot = home.firstIndex(of: "."), dot != home.startIndex, home.index(after: dot) != home.endIndex
                else { continue }
                let uid = String(home[..<dot])
                let utid = String(home[home.index(after: dot)...])
                let clientInfo = Base64URL.encode(JSONWriter.write(.object(["uid": .string(uid), "utid": .string(utid)])))
                let claims = JSONWriter.write(
                    .object([
                        "sub": .string(uid), "oid": .string(uid), "tid": .string(utid), "preferred_username": .string("fuzz@example.com"),
                    ]))
                let idToken = "eyJhbGciOiJub25lIn0." + Base64URL.encode(claims) + ".c2ln"
                let response = TokenResponse(
                    accessToken: "fuzz-access-token", expiresIn: 3600, refreshToken: "fuzz-refresh-token", idToken: idToken,
                    clientInfo: clientInfo, scope: "openid profile User.Read", familyID: "1")
                let context = TokenCacheWriteContext(
                    clientID: clientID, environment: environment, authorityTenant: utid, requestedScopes: ["User.Read"], now: now)
                guard let entries = try? TokenCacheEntries(response: response, context: context) else { continue }
                var copy = contents
                copy.save(entries, clientID: clientID)
                return LoadedCache(copy)
            }
            return nil
        }

        /// A copy with every account signed out of every client it has credentials for, as
        /// `remove(account)` does: the index is updated entry by entry, not rebuilt.
        public func removingEveryAccount() -> LoadedCache {
            var copy = contents
            var targets: [(home: String, environment: String, client: String)] = []
            for (_, items) in contents.index.accounts {
                for item in items where !item.client.isEmpty && !item.isFamily {
                    if let home = item.entry["home_account_id"], let environment = item.entry["environment"] {
                        targets.append((home, environment, item.client))
                    }
                }
            }
            for target in targets.prefix(64) {
                copy.removeAccount(homeAccountID: target.home, environment: target.environment, clientID: target.client)
            }
            return LoadedCache(copy)
        }
    }

    /// Reads a cache document and indexes it in the same pass, as loading the cache file does
    /// (`TokenCacheContents(parsing:)`: the one-pass `CacheDocumentReader`).
    ///
    /// - Throws: ``MSALFailure`` (``MSALInternalError/cacheCorrupt`` or ``MSALInternalError/cacheTooLarge``).
    public static func loadCache(_ bytes: [UInt8]) throws(MSALFailure) -> LoadedCache {
        LoadedCache(try TokenCacheContents(parsing: bytes))
    }

    /// Reads a cache document without indexing it while reading (`TokenCacheDocument(parsing:)`), then
    /// indexes the finished document.
    ///
    /// - Throws: ``MSALFailure`` as ``loadCache(_:)``.
    public static func loadCacheIndexingAfterwards(_ bytes: [UInt8]) throws(MSALFailure) -> LoadedCache {
        LoadedCache(TokenCacheContents(document: try TokenCacheDocument(parsing: bytes)))
    }

    /// The JSON limits the cache reader applies: nesting depth and whether duplicate names are refused.
    public static var cacheReadingLimits: (maxDepth: Int, rejectsDuplicateKeys: Bool) {
        (TokenCacheDocument.readingLimits.maxDepth, TokenCacheDocument.readingLimits.rejectDuplicateKeys)
    }
}
#endif
