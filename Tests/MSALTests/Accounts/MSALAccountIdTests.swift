import Testing

@testable import MSAL

/// `MSALAccountId` splits the home account id at its last `.`, making the parts only when asked.
@Suite("MSALAccountId: parts of the home account id")
struct MSALAccountIdTests {
    @Test("Splits at the last dot; no parts without a dot that leaves both sides non-empty")
    func parts() {
        let cases: [(String, String?, String?)] = [
            ("uid.utid", "uid", "utid"),
            (
                "9f4880d8-80ba-4c40-97bc-f7a23c703084.f645ad92-e38d-4d1a-b510-d1b09a74a8ca",
                "9f4880d8-80ba-4c40-97bc-f7a23c703084", "f645ad92-e38d-4d1a-b510-d1b09a74a8ca"
            ),
            ("a.b.c", "a.b", "c"),
            ("b2c_1_susi-uid.tenant", "b2c_1_susi-uid", "tenant"),
            ("é.ü", "é", "ü"),
            ("nodot", nil, nil),
            (".utid", nil, nil),
            ("uid.", nil, nil),
            ("", nil, nil),
        ]
        for (identifier, objectId, tenantId) in cases {
            let id = MSALAccountId(identifier: identifier)
            #expect(id.identifier == identifier)
            #expect(id.objectId == objectId, "\(identifier)")
            #expect(id.tenantId == tenantId, "\(identifier)")
        }
        #expect(MSALAccountId(identifier: "a.b") == MSALAccountId(identifier: "a.b"))
        #expect(MSALAccountId(identifier: "a.b") != MSALAccountId(identifier: "a.c"))
    }

    @Test("The home-tenant check ignores ASCII case only")
    func tenantComparison() {
        let id = MSALAccountId(identifier: "uid.F645AD92-E38D")
        #expect(id.hasTenant(equalIgnoringASCIICaseTo: "f645ad92-e38d"))
        #expect(id.hasTenant(equalIgnoringASCIICaseTo: "F645AD92-E38D"))
        #expect(!id.hasTenant(equalIgnoringASCIICaseTo: "f645ad92-e38"))
        #expect(!id.hasTenant(equalIgnoringASCIICaseTo: "f645ad92-e38e"))
        #expect(!MSALAccountId(identifier: "nodot").hasTenant(equalIgnoringASCIICaseTo: "nodot"))
        #expect(!MSALAccountId(identifier: "u.é").hasTenant(equalIgnoringASCIICaseTo: "É"))
    }
}
