import Foundation
import MSALJSON

/// An OpenID Connect claims request (OpenID Connect Core §5.5), such as the claims challenge a
/// resource returns for continuous access evaluation or conditional access.
public final class MSALClaimsRequest: Sendable, CustomStringConvertible {
    private let json: String

    /// Creates a claims request from its JSON text.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/internalErrorInvalidParameter`` when the text is not a
    ///   JSON object.
    public init(jsonString: String) throws {
        let trimmed = jsonString.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let document = try? JSONDocument(parsing: Array(trimmed.utf8), limits: .document),
            document.root.kind == .object
        else {
            throw MSALFailure(.internal, internalCode: .internalErrorInvalidParameter, message: "The claims request is not a JSON object")
        }
        json = trimmed
    }

    /// The JSON text of the request.
    public func jsonString() -> String { json }

    /// The JSON text of the request.
    public var description: String { json }
}
