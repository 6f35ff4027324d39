import AppTokenBenchmarkSupport
import Foundation
import MSAL

/// `count` acquireTokenForClient cache hits through the public async API, cycling over 16
/// tenants of the default memory cache; returns the sum of the tokens' lengths.
func profileAppTokenHits(count: Int) async throws -> Int {
    let tenants = (0..<16).map { String(format: "%08x-0000-4000-8000-%012x", 0x7E0000 + $0, $0) }
    func authority(_ tenant: String) throws -> MSALAuthority {
        try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/\(tenant)")!)
    }
    let config = MSALConfidentialClientApplicationConfig(
        clientId: "5a9c3e7b-2d4f-4a6c-8e0b-1c3d5e7f9a2b", clientCredential: .secret("profile-secret"), authority: try authority(tenants[0]))
    let transport = FillingTransport()
    config.transport = transport
    let application = try MSALConfidentialClientApplication(configuration: config)
    var parameters: [MSALClientCredentialParameters] = []
    for tenant in tenants {
        let parameter = MSALClientCredentialParameters(scopes: ["https://graph.microsoft.com/.default"])
        parameter.authority = try authority(tenant)
        _ = try await application.acquireTokenForClient(with: parameter)
        parameters.append(parameter)
    }
    transport.close()
    let probes = parameters
    // A nonisolated task, as a service's request handler would call it.
    @Sendable nonisolated func loop() async throws -> Int {
        var sum = 0
        for round in 0..<count {
            let result = try await application.acquireTokenForClient(with: probes[round % probes.count])
            sum &+= result.accessToken.utf8.count
        }
        return sum
    }
    return try await Task.detached { try await loop() }.value
}
