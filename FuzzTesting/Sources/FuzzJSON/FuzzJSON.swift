// MSALJSON's reader (`JSONDocument` over `JSONScanner`) and writer, which every other parser is
// built on (through MSALJOSE's `@_spi(Fuzzing)` entry point).
//
// Input: a JSON text.
//
// Invariants:
// - What the reader accepts, the writer writes as a document the reader accepts again and writes
//   to the same bytes (a fixed point after one round).
// - Refusing duplicate names only ever refuses more: a document accepted with them refused is
//   accepted with them tolerated, and written the same way.
// - Nesting: a document accepted at depth 16 is accepted at depth 32.

import FuzzCheck
@_spi(Fuzzing) import MSALJOSE

/// libFuzzer's entry point: reads the input with strict and lenient limits and writes back what
/// was accepted; returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let strict = try? JOSEFuzzingSupport.parseJSON(bytes, maxDepth: 16, rejectDuplicateKeys: true)
    let lenient = try? JOSEFuzzingSupport.parseJSON(bytes, maxDepth: 32, rejectDuplicateKeys: false)
    if let strict {
        fuzzCheck(lenient != nil, "accepted with strict limits but not with lenient ones")
        fuzzCheck(lenient?.compact == strict.compact, "strict and lenient readings write differently")
    }
    guard let lenient else { return 0 }
    let again: JOSEFuzzingSupport.ParsedJSON
    do throws(JOSEError) {
        again = try JOSEFuzzingSupport.parseJSON(lenient.compact, maxDepth: 32, rejectDuplicateKeys: false)
    } catch {
        fuzzCheck(false, "the writer's output does not parse: \(error.message)")
        return 0
    }
    fuzzCheck(again.compact == lenient.compact, "writing is not a fixed point")
    return 0
}
