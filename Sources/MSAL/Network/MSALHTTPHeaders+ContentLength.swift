extension MSALHTTPHeaders {
    /// Why a response's `Content-Length` cannot frame its body.
    struct InvalidContentLength: Error, Equatable {
        /// The field values as received, for a message: control characters escaped, cut at 40.
        var values: String
    }

    /// The body length a response's `Content-Length` declares, checked as RFC 9112 §6.3 asks of a
    /// recipient: `nil` without the field or when `Transfer-Encoding` frames the body instead; otherwise
    /// every value, across repeated fields and comma-separated lists, must be a decimal number (digits
    /// only: no sign, no space inside) that fits an `Int64`, and all must be the same number. Anything
    /// else is an invalid framing, which a client must treat as an unrecoverable error, not guess at.
    func declaredContentLength() -> Result<Int64?, InvalidContentLength> {
        let fieldValues = values(of: "Content-Length")
        if fieldValues.isEmpty || contains("Transfer-Encoding") {
            return .success(nil)
        }
        var length: Int64?
        for value in fieldValues {
            for element in value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                guard let parsed = Self.decimal(element), length == nil || length == parsed else {
                    let shown = OAuthErrorResponse.sanitized(fieldValues.joined(separator: ", "), limit: 40)
                    return .failure(InvalidContentLength(values: shown))
                }
                length = parsed
            }
        }
        return .success(length)
    }

    /// A run of ASCII digits with optional surrounding spaces or tabs, as an `Int64`; `nil` for
    /// anything else, empty text or an overflow.
    private static func decimal(_ bytes: Substring.UTF8View.SubSequence) -> Int64? {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return nil
        }
        var value: Int64 = 0
        for byte in bytes[first...last] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return value
    }
}
