import Foundation
import MSALJOSE
import MSALSupport

/// Validates the bearer access tokens a protected API receives, for an API registered with a
/// Microsoft Entra tenant (or any OpenID provider).
///
/// For each request: the `Authorization: Bearer` token's signature is verified with the
/// authority's published keys (asymmetric algorithms only: RS*, PS*, ES256, ES384), then `iss` (the authority's issuer; for
/// Entra also the v1.0 `https://sts.windows.net/<tenant>/` form, and for `common` or
/// `organizations` the `{tenantid}` template filled with the token's `tid`), `aud` (one of
/// ``audiences``), and `exp`/`nbf`/`iat` with the clock skew. `AccessToken.require(scopes:roles:)`
/// then checks the caller's permissions.
///
/// The metadata and keys are fetched once and kept for a day. A token signed with a key the set
/// does not hold makes the set be fetched again at most once a minute, so a rotated key is found
/// and a flood of forged `kid`s cannot make this API hammer the provider; a failed refetch keeps
/// the keys it had. Requests that meet the same unknown `kid` while a refetch is under way wait
/// for it rather than being refused, so no correctly signed token is refused after a rotation,
/// however many arrive at once. Failures are ``MSALFailure``s whose ``MSALBearerChallenge`` is the answer to send.
///
/// A token that passed every check is remembered (up to ``validatedTokenCacheSize`` tokens), so a
/// caller who sends the same token with each request has its signature checked once: the same
/// token, byte for byte, is accepted again from memory while it is within its `nbf`…`exp` (with
/// the skew) and the key that verified it is still in the key set as last fetched (after any
/// refetch, each token is checked again once). A rejected token is never remembered.
public final class MSALAccessTokenValidator: Sendable {
    /// The authority whose tokens are accepted.
    public let authority: MSALAuthority
    /// The accepted audiences: the API's client id and its App ID URI.
    public let audiences: [String]
    /// Tenants accepted when the authority is multi-tenant (`common`, `organizations`); `nil`: any.
    public let allowedTenants: Set<String>?
    /// Clock skew tolerated for `exp`, `nbf` and `iat`, in seconds.
    public let clockSkew: Double

    /// How many validated tokens are remembered (0: none; every request checks the signature).
    public let validatedTokenCacheSize: Int

    /// Shortest time between two fetches of the key set caused by an unknown `kid`.
    public static let keyRefetchInterval: Double = 60

    let resolver: AuthorityResolver
    /// New correlation ids for callers that pass none. Not `UUID()`: on Linux it opens, reads and
    /// closes `/dev/urandom` for each id, about 7 % of the example service's CPU samples on a route
    /// that validates (docs/performance.md).
    let correlationIDs = CorrelationID()
    /// The accepted issuers for the last metadata seen, by its issuer: they are the same for every
    /// request until the metadata changes.
    private let acceptedIssuers = Mutex<(issuer: String, issuers: [String])?>(nil)
    /// The tokens validated so far (internal for the tests).
    let validatedTokens: ValidatedTokenCache
    /// How DPoP requests are checked (``validate(authorizationHeader:dpopProof:httpMethod:requestURL:correlationID:)``).
    public let dpop: MSALDPoPValidationOptions
    /// The DPoP proofs accepted and not yet too old, so none is accepted twice.
    let dpopProofIDs: DPoPReplayCache
    /// The keys of the DPoP proof headers seen lately, read and thumbprinted once each.
    let dpopProofKeys = DPoPProofKeys()

    /// Creates a validator.
    ///
    /// - Parameters:
    ///   - authority: the API's tenant (or `organizations`/`common` for a multi-tenant API), or an
    ///     ``MSALOIDCAuthority``.
    ///   - audiences: the API's client id and App ID URI (`api://…`); at least one.
    ///   - allowedTenants: with a multi-tenant authority, the tenant ids whose tokens are accepted.
    ///   - clockSkew: seconds of clock difference tolerated (default 300).
    ///   - validatedTokenCacheSize: how many validated tokens are remembered, so that the next
    ///     request with the same token skips the signature check (default 1,024; 0: none).
    ///   - transport: how metadata and keys are fetched; ``MSALCurlTransport`` by default.
    ///   - clock: the time tokens are judged by.
    ///   - dpop: how DPoP requests are checked: how old a proof may be, how many proofs are
    ///     remembered against replay, and the nonce the API requires, if any.
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/internalErrorInvalidParameter`` when no audience is given.
    public init(
        authority: MSALAuthority, audiences: [String], allowedTenants: [String]? = nil, clockSkew: Double = 300,
        validatedTokenCacheSize: Int = 1024, transport: any MSALHTTPTransport = MSALCurlTransport(),
        clock: any MSALClock = MSALSystemClock(), dpop: MSALDPoPValidationOptions = MSALDPoPValidationOptions()
    ) throws {
        let audiences = audiences.filter { !$0.isEmpty }
        guard !audiences.isEmpty else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "An access-token validator needs the API's audiences (its client id and App ID URI)")
        }
        self.authority = authority
        self.audiences = audiences
        self.allowedTenants = allowedTenants.map { Set($0.map { $0.lowercased() }) }
        self.clockSkew = max(0, clockSkew)
        self.validatedTokenCacheSize = max(0, validatedTokenCacheSize)
        self.validatedTokens = ValidatedTokenCache(capacity: validatedTokenCacheSize)
        self.dpop = dpop
        self.dpopProofIDs = DPoPReplayCache(capacity: dpop.replayCacheSize)
        self.resolver = AuthorityResolver(
            pipeline: HTTPPipeline(transport: transport, clock: clock), store: AuthorityMetadataStore(clock: clock))
    }

    /// Validates the value of a request's `Authorization` header (`Bearer <token>`).
    ///
    /// - Parameters:
    ///   - authorizationHeader: the header's value, `nil` when the request has none.
    ///   - correlationID: the id of the request, carried by any error and sent with any metadata
    ///     or key request; `nil`: a new random one.
    /// A sender-constrained token (one with `cnf`: DPoP, MSAL's PoP, mutual TLS) is refused here:
    /// presented as a bearer token, it proves nothing (a DPoP token goes through
    /// ``validate(authorizationHeader:dpopProof:httpMethod:requestURL:correlationID:)``).
    ///
    /// - Throws: ``MSALFailure``: ``MSALInternalError/accessTokenMissing`` without a bearer token,
    ///   ``MSALInternalError/accessTokenSchemeMismatch`` for a sender-constrained token; otherwise as
    ///   ``validate(_:correlationID:)``.
    public func validate(authorizationHeader: String?, correlationID: UUID? = nil) async throws -> AccessToken {
        let now = resolver.store.clock.now()
        // The token is looked up on the header's own bytes: a remembered one is answered without a
        // string made of it, and without a correlation id drawn (only errors and fetches carry one).
        let read: HeaderReading
        if var header = authorizationHeader {
            read = header.withUTF8 { bytes in
                switch Self.bearerToken(in: bytes) {
                case .failure(let refusal):
                    return .refused(refusal)
                case .success(let range):
                    let token = UnsafeBufferPointer(rebasing: bytes[range])
                    let remembered = validatedTokens.remembered(token, now: now)
                    if let remembered, let hit = answerWithWarmKeys(remembered) { return .answered(hit) }
                    if remembered == nil, let checked = checkWithWarmKeys(token, now: now) { return checked }
                    return .toCheck(String(decoding: token, as: UTF8.self), remembered)
                }
            }
        } else {
            read = .refused(Refusal(why: "The request has no Authorization header"))
        }
        let correlationID = correlationID ?? correlationIDs.make()
        switch read {
        case .answered(let token):
            try Self.refuseSenderConstrained(token, correlationID: correlationID)
            return token
        case .failed(let error):
            throw MSALFailure(error, correlationID: correlationID)
        case .refused(let refusal):
            throw MSALFailure(.internal, internalCode: .accessTokenMissing, message: refusal.why, correlationID: correlationID)
        case .toCheck(let token, let remembered):
            // A remembered token parsed as a compact JWT, so its 1 KB or so is not walked again.
            if remembered == nil, !Self.isCompactJWTText(token) {
                throw MSALFailure(
                    .internal, internalCode: .accessTokenMissing, message: "The bearer token is not a compact JWT",
                    correlationID: correlationID)
            }
            let validated = try await validate(token, remembered: remembered, correlationID: correlationID, now: now)
            try Self.refuseSenderConstrained(validated, correlationID: correlationID)
            return validated
        }
    }

    /// Throws ``MSALInternalError/accessTokenSchemeMismatch`` for a sender-constrained token
    /// presented as a bearer token (RFC 9449 §7.2, RFC 8705 §3).
    static func refuseSenderConstrained(_ token: AccessToken, correlationID: UUID) throws(MSALFailure) {
        guard token.isSenderConstrained else { return }
        throw MSALFailure(
            .internal, internalCode: .accessTokenSchemeMismatch,
            message: "The access token is bound to a key or certificate (cnf) and was presented as a bearer token",
            correlationID: correlationID)
    }

    /// What reading an `Authorization` header found.
    private enum HeaderReading {
        /// A remembered token, answered from memory.
        case answered(AccessToken)
        /// A token checked with the keys in memory, and refused.
        case failed(JOSEError)
        /// No bearer token, and why.
        case refused(Refusal)
        /// A token to check, and what the memory holds for it (its keys were not in memory).
        case toCheck(String, ValidatedTokenCache.Remembered?)
    }

    /// Validates a bearer access token; a sender-constrained one (with `cnf`) is refused with
    /// ``MSALInternalError/accessTokenSchemeMismatch``.
    ///
    /// - Parameters:
    ///   - token: the compact JWT.
    ///   - correlationID: the id of the request, carried by any error and sent with any metadata
    ///     or key request; `nil`: a new random one.
    /// - Throws: ``MSALFailure``: a `-46xxx` internal code for the token (signature, key, `iss`,
    ///   `aud`, expiry…), or a network or metadata error when the keys cannot be had.
    public func validate(_ token: String, correlationID: UUID? = nil) async throws -> AccessToken {
        let now = resolver.store.clock.now()
        let remembered = validatedTokens.remembered(token, now: now)
        if let remembered, let hit = answerWithWarmKeys(remembered) {
            if hit.isSenderConstrained { try Self.refuseSenderConstrained(hit, correlationID: correlationID ?? correlationIDs.make()) }
            return hit
        }
        let correlationID = correlationID ?? correlationIDs.make()
        let validated = try await validate(token, remembered: remembered, correlationID: correlationID, now: now)
        try Self.refuseSenderConstrained(validated, correlationID: correlationID)
        return validated
    }

    /// A remembered token, answered without suspending when the metadata and keys are in memory
    /// (most requests of a busy API end here); `nil` when they are not, or when ``answer(_:keys:)`` says no.
    func answerWithWarmKeys(_ remembered: ValidatedTokenCache.Remembered) -> AccessToken? {
        guard let metadata = resolver.cachedMetadata(for: authority), let keys = resolver.cachedKeySet(for: metadata) else {
            return nil
        }
        return answer(remembered, keys: keys)
    }

    /// A token checked on the header's bytes with the metadata and keys in memory (every request
    /// but the first few), without the asynchronous lookups and without a `String` made of it:
    /// `.answered` or `.failed`; `nil` when they are not in memory, when the token's key is not in
    /// the set (the asynchronous path fetches it again when the rate limit allows), or when the
    /// token is not a compact JWT's text (which that path refuses with its own message).
    private func checkWithWarmKeys(_ token: UnsafeBufferPointer<UInt8>, now: Date) -> HeaderReading? {
        guard Base64URL.isCompactSerialization(token), let metadata = resolver.cachedMetadata(for: authority),
            let keys = resolver.cachedKeySet(for: metadata)
        else { return nil }
        do throws(JOSEError) {
            let validated = try checked(metadata: metadata, keys: keys, now: now, text: { String(decoding: token, as: UTF8.self) }) {
                validator throws(JOSEError) in try validator.validate(utf8: token, now: now)
            }
            return .answered(validated)
        } catch  where error.code == .keyNotFound {
            return nil
        } catch {
            return .failed(error)
        }
    }

    /// A remembered token, answered only while the key that verified it is still in `keys`, from
    /// the same fetch: a withdrawn key's tokens are refused once the set is fetched again, and
    /// every token is checked again once after any refetch. The key is found by identity (each
    /// fetch parses new key objects, and a set is never changed once made), so the key the token's
    /// header selects in that set is the one that verified it.
    private func answer(_ remembered: ValidatedTokenCache.Remembered, keys: JSONWebKeySet) -> AccessToken? {
        guard keys.keys.contains(where: { $0.isSameKey(as: remembered.key) }) else { return nil }
        validatedTokens.countHit()
        return remembered.token
    }

    /// ``validate(_:correlationID:)`` once the memory could not answer: the metadata and keys
    /// resolved (fetched if need be), `remembered` answered from them if it can be, else every check made.
    func validate(
        _ token: String, remembered: ValidatedTokenCache.Remembered?, correlationID: UUID, now: Date
    ) async throws -> AccessToken {
        // Metadata and keys in memory (every request but the first few): checked here, without
        // the asynchronous lookups. A token whose key is not in the set takes the path below,
        // which fetches the set again when the rate limit allows.
        if let metadata = resolver.cachedMetadata(for: authority), let keys = resolver.cachedKeySet(for: metadata) {
            do throws(JOSEError) {
                return try check(token, remembered: remembered, metadata: metadata, keys: keys, now: now)
            } catch  where error.code == .keyNotFound {
                // Fall through: the key set may have been rotated.
            } catch {
                throw MSALFailure(error, correlationID: correlationID)
            }
        }
        let metadata = try await resolver.resolve(authority, correlationID: correlationID)
        return try await resolver.withKeySet(
            metadata, refetchInterval: Self.keyRefetchInterval, now: now, correlationID: correlationID
        ) { keys throws(JOSEError) in
            try check(token, remembered: remembered, metadata: metadata, keys: keys, now: now)
        }
    }

    /// `remembered` answered from `keys` if it can be, else every check of `token` made against
    /// them; a validated token is remembered.
    private func check(
        _ token: String, remembered: ValidatedTokenCache.Remembered?, metadata: MSALAuthorityMetadata, keys: JSONWebKeySet, now: Date
    ) throws(JOSEError) -> AccessToken {
        if let remembered, let hit = answer(remembered, keys: keys) { return hit }
        return try checked(metadata: metadata, keys: keys, now: now, text: { token }) { validator throws(JOSEError) in
            try validator.validate(token, now: now)
        }
    }

    /// Every check of a token against `keys` and the metadata's issuers, made by `validate` on the
    /// token's text or bytes; a validated token is remembered (`text` makes its string only then).
    private func checked(
        metadata: MSALAuthorityMetadata, keys: JSONWebKeySet, now: Date, text: () -> String,
        _ validate: (AccessTokenValidator) throws(JOSEError) -> AccessToken
    ) throws(JOSEError) -> AccessToken {
        let options = AccessTokenValidationOptions(
            issuers: issuers(metadata), audiences: audiences, allowedTenants: allowedTenants, clockSkew: clockSkew)
        let validated = try validate(AccessTokenValidator(keySet: keys, options: options))
        if validatedTokens.capacity > 0, let key = keys.verifyingKey(for: validated.jwt) {
            validatedTokens.keep(validated, key: key, token: text(), skew: clockSkew, now: now)
        }
        return validated
    }

    /// `Self.issuers(metadata)`, kept while the metadata's issuer stays the same.
    private func issuers(_ metadata: MSALAuthorityMetadata) -> [String] {
        let issuer = metadata.issuer
        if let known = acceptedIssuers.withLock({ $0 }), known.issuer == issuer { return known.issuers }
        let issuers = Self.issuers(metadata)
        acceptedIssuers.withLock { $0 = (issuer, issuers) }
        return issuers
    }

    /// The issuers a token of `metadata`'s authority may name: its own, and for Microsoft Entra
    /// the v1.0 form on `sts.windows.net` for the same tenant (or template).
    /// String checks only: this runs for every request, and parsing a `URL` costs more than the rest.
    static func issuers(_ metadata: MSALAuthorityMetadata) -> [String] {
        let issuer = metadata.issuer
        let prefix = "https://login.microsoftonline.com/"
        let suffix = "/v2.0"
        guard metadata.kind == .aad, issuer.hasPrefix(prefix), issuer.hasSuffix(suffix),
            issuer.utf8.count > prefix.utf8.count + suffix.utf8.count
        else { return [issuer] }
        let tenant = issuer.dropFirst(prefix.count).dropLast(suffix.count)
        // Byte checks: Foundation's `contains(_:)` for a string searches with a locale (and opened a
        // file on every call).
        guard !tenant.isEmpty, !tenant.utf8.contains(UInt8(ascii: "/")) else { return [issuer] }
        return [issuer, "https://sts.windows.net/\(tenant)/"]
    }

    /// Why a header holds no bearer token.
    private struct Refusal: Error {
        let why: String
    }

    /// Where the token is in the bytes of an `Authorization: Bearer` header value: after the scheme
    /// in any case, around optional whitespace (spaces and tabs, RFC 9110's OWS); or why there is
    /// none. Its characters are checked later, and only when the token is not remembered
    /// (``isCompactJWTText(_:)``). On the header's contiguous UTF-8 bytes: walking
    /// `String.UTF8View` slices byte by byte cost a large share of a request whose token was
    /// already validated (docs/performance.md).
    private static func bearerToken(in bytes: UnsafeBufferPointer<UInt8>) -> Result<Range<Int>, Refusal> {
        @inline(__always) func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        var start = 0
        var end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        guard start < end else { return .failure(Refusal(why: "The request has no Authorization header")) }
        var schemeEnd = start
        while schemeEnd < end, !isSpace(bytes[schemeEnd]) { schemeEnd += 1 }
        // ASCII letters only: setting bit 0x20 maps "B" to "b" and nothing else to a letter of "bearer".
        let bearer: StaticString = "bearer"
        guard schemeEnd - start == 6,
            (0..<6).allSatisfy({ bytes[start + $0] | 0x20 == bearer.utf8Start[$0] })
        else {
            return .failure(Refusal(why: "The Authorization header does not use the Bearer scheme"))
        }
        var tokenStart = schemeEnd
        while tokenStart < end, isSpace(bytes[tokenStart]) { tokenStart += 1 }
        guard tokenStart < end, end - tokenStart <= JWTVerifier.defaultMaximumTokenSize else {
            return .failure(Refusal(why: "The bearer token is not a compact JWT"))
        }
        return .success(tokenStart..<end)
    }

    /// Whether `token` holds only the base64url alphabet and the dots between segments.
    /// (Byte by byte on the contiguous bytes: `SIMD16` versions were tens of times slower here.)
    static func isCompactJWTText(_ token: String) -> Bool {
        var token = token
        return token.withUTF8 { Base64URL.isCompactSerialization($0) }
    }
}
