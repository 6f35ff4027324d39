// Standard-library `rethrows` closures erase typed errors to `any Error`; these
// bridges keep `JOSEError` typed (and unboxed) across them.

extension String {
    /// `withUTF8` that keeps a typed `JOSEError`.
    mutating func withUTF8Bytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws(JOSEError) -> R) throws(JOSEError) -> R {
        let result = withUTF8 { buffer in
            Result<R, JOSEError> { () throws(JOSEError) -> R in try body(buffer) }
        }
        return try result.get()
    }
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` that keeps a typed `JOSEError`.
    func withRawBytes<R>(_ body: (UnsafeRawBufferPointer) throws(JOSEError) -> R) throws(JOSEError) -> R {
        let result = withUnsafeBytes { buffer in
            Result<R, JOSEError> { () throws(JOSEError) -> R in try body(buffer) }
        }
        return try result.get()
    }
}
