import Foundation
import MSALSupport

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
            guard let decodedName = PercentEncoding.decodeFormComponent(name), let decodedValue = PercentEncoding.decodeFormComponent(value)
            else {
                return .failure(.malformed)
            }
            guard parameters.updateValue(decodedValue, forKey: decodedName) == nil else {
                return .failure(.duplicate(decodedName))
            }
        }
        return .success(parameters)
    }
}
