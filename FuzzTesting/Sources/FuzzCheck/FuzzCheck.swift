#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Stops the run when an invariant does not hold: prints `message` and aborts, so libFuzzer
/// reports a crash and keeps the input that caused it.
///
/// Used instead of `precondition`, which an optimized build may turn into a bare trap without
/// the message.
public func fuzzCheck(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line
) {
    guard !condition() else { return }
    let text = "Fuzz invariant failed (\(file):\(line)): \(message())\n"
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        guard written > 0 else { break }
        bytes = bytes.dropFirst(written)
    }
    abort()
}

/// The fuzzer's input as bytes.
public func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// `bytes` split at the first `separator`: (before, after); `nil` when it does not occur.
public func fuzzSplit(_ bytes: [UInt8], at separator: UInt8) -> ([UInt8], [UInt8])? {
    guard let index = bytes.firstIndex(of: separator) else { return nil }
    return (Array(bytes[..<index]), Array(bytes[(index + 1)...]))
}

/// Whether `text` holds a C0 or C1 control character or DEL (which should never reach a message
/// or page built from server input).
public func fuzzHasControlCharacter(_ text: String) -> Bool {
    text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
}
