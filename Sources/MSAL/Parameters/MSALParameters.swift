import Foundation

/// Parameters of the account calls (MSAL for iOS's `MSALParameters`): only the correlation id.
public struct MSALParameters: Sendable, Hashable {
    /// The correlation id of the call; a new one when `nil`.
    public var correlationId: UUID?

    /// Creates parameters.
    public init(correlationId: UUID? = nil) {
        self.correlationId = correlationId
    }
}
