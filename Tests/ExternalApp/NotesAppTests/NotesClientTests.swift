import Foundation
import MSAL
import NotesApp
import Testing

/// A canned token source, as an app writes one for its tests.
struct CannedTokens: TokenSource {
    var outcome: Result<MSALResult, MSALFailure>
    func token(scopes: [String]) async throws -> MSALResult { try outcome.get() }
}

@Suite("An app outside swift-msal tests its own code with MSALResult and MSALAccount built from public initialisers")
struct NotesClientTests {
    static func result() throws -> MSALResult {
        let tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"
        let profile = MSALTenantProfile(
            identifier: "00000000-0000-0000-66f3-3332eca7ea81", environment: "login.microsoftonline.com", tenantId: tenant,
            isHomeTenantProfile: true, idToken: nil)
        let account = MSALAccount(
            identifier: "00000000-0000-0000-66f3-3332eca7ea81.\(tenant)", username: "abe@contoso.com",
            environment: "login.microsoftonline.com", tenantProfiles: [profile])
        return MSALResult(
            accessToken: "test-access-token", expiresOn: Date(timeIntervalSinceNow: 3600), idToken: nil,
            scopes: ["api://notes/Notes.Read"], tenantProfile: profile, account: account,
            authority: try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/\(tenant)")!),
            correlationId: UUID(), tokenSource: .cache)
    }

    @Test("The request carries the Bearer token, the username and the tenant of the result")
    func request() async throws {
        let client = NotesClient(tokens: CannedTokens(outcome: .success(try Self.result())), baseURL: URL(string: "https://notes.example")!)
        let request = try await client.listRequest()
        #expect(request.url.absoluteString == "https://notes.example/users/abe@contoso.com/notes")
        #expect(request.headers["Authorization"] == "Bearer test-access-token")
        #expect(request.headers["X-Tenant"] == "72f988bf-86f1-41af-91ab-2d7cd011db47")
        let account = try Self.result().account
        #expect(account.homeAccountId?.objectId == "00000000-0000-0000-66f3-3332eca7ea81")
        #expect(account.homeAccountId?.tenantId == "72f988bf-86f1-41af-91ab-2d7cd011db47")
    }

    @Test("interactionRequired from the token source means: sign in again")
    func fallback() async throws {
        let required = MSALFailure(.interactionRequired, internalCode: nil, message: "The user must sign in", correlationID: nil)
        let client = NotesClient(tokens: CannedTokens(outcome: .failure(required)), baseURL: URL(string: "https://notes.example")!)
        do {
            _ = try await client.listRequest()
            Issue.record("expected an error")
        } catch {
            #expect(client.needsSignIn(after: error))
            #expect((error as NSError).domain == MSALErrorDomain)
        }
    }
}
