import Foundation
import MSALSupport

/// The parameters of ``MSALManagedIdentityApplication/acquireToken(with:)``: a token for one
/// resource, for the application's managed identity.
public final class MSALManagedIdentityParameters: Sendable {
    private struct Values: Sendable {
        var forceRefresh = false
        var claims: String?
        var correlationId: UUID?
    }

    /// The resource the token is for: its application ID URI, such as
    /// `https://management.azure.com` or `https://vault.azure.net`. A trailing `/.default` (a
    /// scope) is accepted and removed.
    public let resource: String
    private let values = Mutex(Values())

    /// Creates parameters for `resource`.
    public init(resource: String) {
        self.resource = resource
    }

    /// Ignore a cached token and ask the source again. Default `false`.
    public var forceRefresh: Bool {
        get { values.withLock { $0.forceRefresh } }
        set { values.withLock { $0.forceRefresh = newValue } }
    }

    /// A claims challenge from the resource (continuous access evaluation): the cache is skipped,
    /// and Service Fabric, the one source that takes it, is told which token to replace.
    public var claims: String? {
        get { values.withLock { $0.claims } }
        set { values.withLock { $0.claims = newValue } }
    }

    /// The correlation id logged and returned with the result or error; a new one when `nil`.
    public var correlationId: UUID? {
        get { values.withLock { $0.correlationId } }
        set { values.withLock { $0.correlationId = newValue } }
    }

    package var snapshot: (forceRefresh: Bool, claims: String?, correlationId: UUID?) {
        values.withLock { ($0.forceRefresh, $0.claims, $0.correlationId) }
    }
}
