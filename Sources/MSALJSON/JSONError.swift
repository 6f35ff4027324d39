/// Why bytes could not be read as a JSON document: not JSON, over a limit, or (when the limits
/// ask for it) an object that names a member twice.
///
/// The JOSE and protocol layers turn it into their own errors (`JOSEError`, `MSALFailure`) with the
/// same code and message. Messages name the problem and its byte offset, never the document's text
/// beyond a duplicate member's name cut to 64 bytes. That name is the document's own text, not yet
/// escaped: report a `JSONError` through `JOSEError(_:)` (`JSONDocument.parsed(_:limits:)`), whose
/// message goes through `UntrustedText`, never as it is.
package struct JSONError: Error, Sendable, Hashable {
    /// The kind of failure.
    package enum Code: Sendable, Hashable {
        /// The bytes break RFC 8259 (grammar, strict UTF-8, nothing after the value).
        case invalidJSON
        /// An object names the same member twice and the limits reject that.
        case duplicateMember
        /// Over one of the caps of ``JSONLimits``.
        case limitExceeded
    }

    /// What went wrong.
    package var code: Code
    /// What the reader found, with its offset when it has one.
    package var message: String

    /// An error with `code` and `message`.
    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The error a scanner failure stands for.
    package init(_ failure: JSONScanner.Failure) {
        switch failure {
        case .invalid(let message, let offset): self.init(.invalidJSON, "\(message) (offset \(offset))")
        case .limit(let message): self.init(.limitExceeded, message)
        case .duplicateMember(let message): self.init(.duplicateMember, message)
        }
    }
}
