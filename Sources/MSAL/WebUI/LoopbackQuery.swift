import Foundation

/// Decodes the query of a redirect request (`application/x-www-form-urlencoded`, RFC 6749 §4.1.2).
package enum LoopbackQuery {
    /// Why a query cannot be used.
    package enum Failure: Error, Equatable {
        /// A parameter name appears more than once.
        case duplicate(String)
        /// A `%` escape is invalid or the decoded bytes are not UTF-8.
        case malformed
    }

    /// The parameters of `query` (the part after `?`), percent-decoded with `+` as a space.
    ///
    /// Empty `&`-separated pieces are skipped and a piece without `=` has an empty value. Any name appearing
    /// twice is refused: a redirect with two `state`, `code` or `error` values is not trusted.
    package static func parameters(_ query: Substring) -> Result<[String: String], Failure> {
        var parameters: [String: String] = [:]
        for piece in query.split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring
            let value: Substring
            if let equals = piece.firstIndex(of: "=") {
                name = piece[..<equals]
                value = piece[piece.index(after: equals)...]
            } else {
                name = piece
                value = ""
            }
            guard let decodedName = decode(name), let decodedValue = decode(value) else {
                return .failure(.malformed)
            }
            guard parameters.updateValue(decodedValue, forKey: decodedName) == nil else {
                return .failure(.duplicate(decodedName))
            }
        }
        return .success(parameters)
    }

    /// `text` with `+` as a space and `%XX` escapes decoded, or `nil` for a bad escape or bytes that are not UTF-8.
    package static func decode(_ text: Substring) -> String? {
        guard text.contains(where: { $0 == "%" || $0 == "+" }) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
