import MSALJSON

extension TokenCacheDocument {
    /// Limits for reading a cache document: up to 512 MiB (a 10,000-account cache is about 64 MB),
    /// nesting 64 deep (the schema needs 3; unknown fields get room), duplicate names tolerated
    /// (the last one wins, as in the other MSALs' JSON readers).
    package static let readingLimits = JSONLimits(
        maxBytes: 512 << 20, maxDepth: 64, maxValues: 64_000_000, rejectDuplicateKeys: false)

    /// Reads a cache document.
    ///
    /// Empty input (or only whitespace) is an empty document. A leading UTF-8 byte-order mark is
    /// skipped. Known sections must be JSON objects; an entry in them that is not an object is kept
    /// as it is but never used. Keys are matched case-insensitively: when a legacy mixed-case key and
    /// its lower-case form are both present, the lower-case entry wins. Numbers in the numeric
    /// members (`expires_on`, …) are read as strings; a `target` written as an array of scopes is
    /// read as one space-separated string.
    ///
    /// The entries keep their string members as slices of `bytes` (see ``CacheSource``).
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/cacheCorrupt`` (not JSON, not an object, a
    ///   known section that is not an object, nested or numerous beyond the reading limits) or
    ///   ``MSALInternalError/cacheTooLarge`` (over the size cap).
    package init(parsing bytes: [UInt8]) throws(MSALFailure) {
        self.init()
        _ = try Self.read(CacheSource(bytes: bytes), into: &self, indexingWith: nil)
    }

    /// Reads a cache document and, with `aliases`, indexes its entries as they are read (so each
    /// entry is visited while it is still in the processor's cache); see ``init(parsing:)``. The
    /// document then holds `source`'s bytes; an owned source (the file read straight into it) is compacted in place: the caller must not
    /// use it afterwards.
    package static func parse(
        _ source: CacheSource, indexingWith aliases: CacheEnvironmentAliases
    ) throws(MSALFailure) -> (TokenCacheDocument, TokenCacheIndex) {
        var document = TokenCacheDocument()
        let index = try read(source, into: &document, indexingWith: aliases)
        return (document, index ?? TokenCacheIndex())
    }

    private static func read(
        _ source: CacheSource, into document: inout TokenCacheDocument, indexingWith aliases: CacheEnvironmentAliases?
    ) throws(MSALFailure) -> TokenCacheIndex? {
        let count = source.count
        let (start, blank) = source.withBytes { bytes -> (Int, Bool) in
            var start = 0
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }
            return (start, bytes[start...].allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }))
        }
        if blank {
            source.truncate(to: 0)
            return nil
        }
        let limits = Self.readingLimits
        guard count - start <= limits.maxBytes, count < Int(Int32.max) else {
            throw MSALFailure(
                .internal, internalCode: .cacheTooLarge,
                message:
                    "The token cache is not valid JSON: JSON document of \(count - start) bytes exceeds the \(limits.maxBytes)-byte limit"
            )
        }
        do throws(CacheDocumentReader.Failure) {
            return try CacheDocumentReader.read(source, from: start, limits: limits, into: &document, indexingWith: aliases)
        } catch {
            switch error {
            case .json(.invalid(let message, let offset)):
                throw MSALFailure(
                    .internal, internalCode: .cacheCorrupt, message: "The token cache is not valid JSON: \(message) (offset \(offset))")
            case .json(.limit(let message)), .json(.duplicateMember(let message)):
                // Nesting or a value count no cache document reaches: not a cache, so it is corrupt and
                // moved aside like any unparsable file (only a file over the size cap is left in place).
                // (Duplicate names are tolerated here: the reader never reports one.)
                throw MSALFailure(.internal, internalCode: .cacheCorrupt, message: "The token cache is not a cache document: \(message)")
            case .section(let name):
                throw MSALFailure(.internal, internalCode: .cacheCorrupt, message: "The token cache section \(name) is not a JSON object")
            case .notAnObject:
                throw MSALFailure(.internal, internalCode: .cacheCorrupt, message: "The token cache is not a JSON object")
            }
        }
    }
}

/// Member names of cache entries.
enum CacheFieldNames {
    /// Whether `name` is a member the unified schema defines.
    static func isKnown(_ name: String) -> Bool {
        CacheKnownField(name: name) != nil
    }
}
