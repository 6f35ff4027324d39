import Foundation
import MSALJOSE
import MSALJSON

/// The shared first step of reading a discovery document: bounded JSON, a root object, and
/// failures reported as ``MSALInternalError/invalidAuthorityMetadata`` naming the document.
package struct AuthorityDocument {
    package let name: String
    package let correlationID: UUID?

    /// The error for `reason`.
    package func fail(_ reason: String, _ underlying: JOSEError? = nil) -> MSALFailure {
        MSALFailure(
            .internal, internalCode: .invalidAuthorityMetadata,
            message: "The \(name) is invalid: \(reason).", correlationID: correlationID,
            underlyingError: underlying)
    }

    /// The root object of `body`.
    package func root(_ body: [UInt8]) throws(MSALFailure) -> JSONValue {
        let document: JSONDocument
        do throws(JOSEError) {
            // A leading byte-order mark is skipped, as the error and device-code parsers do.
            let hasBOM = body.starts(with: [0xEF, 0xBB, 0xBF])
            document = try JSONDocument.parsed(hasBOM ? Array(body.dropFirst(3)) : body, limits: .document)
        } catch {
            throw fail("not JSON (\(error.message))", error)
        }
        guard document.root.kind == .object else { throw fail("not a JSON object") }
        return document.root
    }
}
