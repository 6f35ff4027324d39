import Foundation

extension MSALError {
    /// This error with `correlationID` unless it already names one: errors of layers that know
    /// nothing of requests (the token cache file, for one) get the id of the request they failed.
    package func correlated(_ correlationID: UUID) -> MSALError {
        guard self.correlationID == nil else { return self }
        var error = self
        error.correlationID = correlationID
        return error
    }
}
