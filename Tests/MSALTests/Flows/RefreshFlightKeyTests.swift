import Testing

@testable import MSAL

/// Flight keys tell token requests apart by kind and scheme, not by prefixes in their strings: an
/// on-behalf-of flight and a user's refresh whose strings are equal are two flights.
@Suite("Refresh flight keys: whose token, and its scheme")
struct RefreshFlightKeyTests {
    static func key(_ subject: RefreshFlightKey.Subject, scopes: [String] = ["user.read"]) -> RefreshFlightKey {
        RefreshFlightKey(
            subject: subject, scheme: .bearer, environment: "login.microsoftonline.com", realm: "contoso", scopes: scopes, claims: nil)
    }

    @Test("The same string under two kinds is two keys; the same kind and string is one")
    func kindsNeverMeet() {
        let value = "uid.utid"
        let keys: [RefreshFlightKey] = [
            Self.key(.account(home: value)), Self.key(.application(home: value)), Self.key(.onBehalfOf(assertionHash: value)),
            Self.key(.managedIdentity(clientID: value)),
        ]
        #expect(Set(keys).count == 4)
        #expect(Self.key(.account(home: value)) == Self.key(.account(home: value)))
        #expect(Self.key(.account(home: value)) != Self.key(.account(home: value), scopes: ["mail.read"]))
        // A kind's string may be anything, prefixes included: it cannot pass for another kind.
        #expect(Self.key(.account(home: "\u{2}" + value)) != Self.key(.onBehalfOf(assertionHash: value)))
    }

    @Test("The scheme is part of the key (bearer today; the proof-of-possession kinds add theirs)")
    func scheme() {
        let key = Self.key(.account(home: "a"))
        #expect(key.scheme == .bearer)
        #expect(TokenScheme.bearer.tokenType == "Bearer")
    }
}
