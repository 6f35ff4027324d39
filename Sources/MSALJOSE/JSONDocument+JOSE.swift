import MSALJSON

extension JOSEError {
    /// The JOSE error for a JSON reading failure: the same code and message.
    package init(_ error: JSONError) {
        switch error.code {
        case .invalidJSON: self.init(.invalidJSON, error.message)
        case .duplicateMember: self.init(.duplicateMember, error.message)
        case .limitExceeded: self.init(.limitExceeded, error.message)
        }
    }
}

extension JSONDocument {
    /// Parses `bytes` as ``JSONDocument/init(parsing:limits:)`` does, reporting a failure as the
    /// ``JOSEError`` with the same code and message (for code that throws JOSE errors).
    package static func parsed(_ bytes: [UInt8], limits: JSONLimits) throws(JOSEError) -> JSONDocument {
        do throws(JSONError) {
            return try JSONDocument(parsing: bytes, limits: limits)
        } catch {
            throw JOSEError(error)
        }
    }
}
