// The token cache document loader: the one-pass `CacheDocumentReader` with its index, the writer,
// and the cache operations on what was loaded (`@_spi(Fuzzing)` entry points of MSAL).
//
// Input: a cache file.
//
// Invariants:
// - The cache's schema mapping accepts exactly what `JSONDocument` accepts (same limits) with an
//   object root whose known sections are objects; empty or blank input is an empty cache.
// - Reading while indexing and reading then indexing give the same document and the same index,
//   and that index equals one rebuilt from the document.
// - Whatever reads serializes to a document that reads back to the same document and serializes
//   to the same bytes.
// - After saving a token response into it and after signing every account out, the incrementally
//   kept index equals a rebuilt one, and the document still round-trips.
// - A failure is an MSALFailure with `cacheCorrupt` or `cacheTooLarge`.

import FuzzCheck
@_spi(Fuzzing) import MSAL
@_spi(Fuzzing) import MSALJOSE

let knownSections: Set<String> = ["AccessToken", "RefreshToken", "IdToken", "Account", "AppMetadata"]
let now: Int64 = 1_767_225_600

/// libFuzzer's entry point: loads the input as a token cache file, then round-trips, queries,
/// saves into and signs out of what loaded; returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCacheDocument(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let loaded = load(bytes)
    checkAgainstJSONReader(bytes, loaded: loaded)
    guard let loaded else { return 0 }

    let other = try? MSALFuzzingSupport.loadCacheIndexingAfterwards(bytes)
    fuzzCheck(other != nil, "the document reads while indexing but not on its own")
    if let other {
        fuzzCheck(loaded.hasSameDocument(as: other), "reading with and without the index gives different documents")
        fuzzCheck(loaded.indexSummary == other.indexSummary, "the index built while reading differs from the one built afterwards")
    }
    fuzzCheck(loaded.indexSummary == loaded.rebuiltIndexSummary, "the index built while reading differs from a rebuilt one")
    checkRoundTrip(loaded, "the document as read")

    _ = loaded.exerciseQueries(now: now)

    if let saved = loaded.savingTokenResponse(clientID: "fuzz-client", now: now) {
        fuzzCheck(saved.indexSummary == saved.rebuiltIndexSummary, "after saving a token response the index differs from a rebuilt one")
        checkRoundTrip(saved, "the document after saving a token response")
        _ = saved.exerciseQueries(now: now)
    }
    let removed = loaded.removingEveryAccount()
    fuzzCheck(removed.indexSummary == removed.rebuiltIndexSummary, "after signing accounts out the index differs from a rebuilt one")
    checkRoundTrip(removed, "the document after signing accounts out")
    return 0
}

/// The cache read from `bytes`, or `nil` after checking the error is a typed cache error.
func load(_ bytes: [UInt8]) -> MSALFuzzingSupport.LoadedCache? {
    do throws(MSALFailure) {
        return try MSALFuzzingSupport.loadCache(bytes)
    } catch {
        fuzzCheck(
            error.internalCode == .cacheCorrupt || error.internalCode == .cacheTooLarge,
            "reading the cache failed with \(String(describing: error.internalCode))")
        return nil
    }
}

/// The cache's schema mapping against `JSONDocument` on the same scanner.
func checkAgainstJSONReader(_ bytes: [UInt8], loaded: MSALFuzzingSupport.LoadedCache?) {
    var body = bytes[...]
    if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
    if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
        fuzzCheck(loaded?.entryCount == 0, "blank input is not an empty cache")
        return
    }
    let limits = MSALFuzzingSupport.cacheReadingLimits
    let json = try? JOSEFuzzingSupport.parseJSON(Array(body), maxDepth: limits.maxDepth, rejectDuplicateKeys: limits.rejectsDuplicateKeys)
    guard let json else {
        fuzzCheck(loaded == nil, "the cache reader accepted a document the JSON reader rejects")
        return
    }
    let acceptable =
        json.rootMembers.map { members in
            members.allSatisfy { !knownSections.contains($0.name) || $0.kind == "object" }
        } ?? false
    fuzzCheck(
        acceptable == (loaded != nil),
        acceptable
            ? "the cache reader rejected a document the JSON reader accepts" : "the cache reader accepted a document that is not a cache")
}

/// Serializing `cache` gives a document that reads back to the same document and the same bytes.
func checkRoundTrip(_ cache: MSALFuzzingSupport.LoadedCache, _ what: String) {
    let written = cache.serialized
    let reread: MSALFuzzingSupport.LoadedCache
    do throws(MSALFailure) {
        reread = try MSALFuzzingSupport.loadCache(written)
    } catch {
        fuzzCheck(false, "\(what) serializes to bytes that do not read back: \(error.message)")
        return
    }
    fuzzCheck(reread.hasSameDocument(as: cache), "\(what) reads back as another document")
    fuzzCheck(reread.serialized == written, "\(what) serializes differently once read back")
    fuzzCheck(reread.indexSummary == cache.rebuiltIndexSummary, "\(what) indexes differently once read back")
}
