import Foundation
import Testing

@testable import MSAL

/// The claims request merged with the client capabilities, against every vector of MSAL for .NET,
/// Node and Python (`Fixtures/Flows/cae/`), compared as JSON values: member order and whitespace
/// are not part of the contract.
@Suite("Claims merging: claims requests and client capabilities")
struct ClaimsMergingTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        var source: String
        var claims: String?
        var capabilities: [String]?
        var expected: String?
        var testDescription: String { "\(source): \(claims ?? "nil") + \(capabilities ?? [])" }
    }

    static let vectors: [Vector] = {
        var vectors: [Vector] = []
        func json(_ value: Any?) -> String? {
            switch value {
            case let text as String: return text
            case nil, is NSNull: return nil
            case let object?:
                return (try? JSONSerialization.data(withJSONObject: object)).map { String(decoding: $0, as: UTF8.self) } ?? "<not JSON>"
            }
        }
        func load(_ name: String) -> [String: Any] {
            (try? JSONSerialization.jsonObject(with: FixtureLoader.data("Flows/cae/\(name)"))) as? [String: Any] ?? [:]
        }
        for case let item as [String: Any] in load("dotnet_claims_client_capabilities_merge.json")["cases"] as? [Any] ?? [] {
            vectors.append(
                Vector(
                    source: "MSAL.NET", claims: json(item["claims"]), capabilities: item["client_capabilities"] as? [String],
                    expected: json(item["expected"])))
        }
        let node = load("msaljs_cae_claims_merge.json")
        for case let item as [String: Any] in node["cases"] as? [Any] ?? [] {
            vectors.append(
                Vector(
                    source: "msal-node", claims: json(item["claims"]), capabilities: node["client_capabilities"] as? [String],
                    expected: json(item["expected"])))
        }
        for case let item as [String: Any] in load("python_claims_merge.json")["cases"] as? [Any] ?? [] {
            vectors.append(
                Vector(
                    source: "MSAL Python \(item["test"] ?? "")", claims: json(item["claims_challenge"]),
                    capabilities: item["client_capabilities"] as? [String], expected: json(item["expected"])))
        }
        return vectors
    }()

    @Test("Every reference vector was loaded")
    func loaded() {
        #expect(Self.vectors.count == 7 + 4 + 5)
    }

    @Test("Merged as the other MSALs merge", arguments: vectors)
    func vector(_ vector: Vector) throws {
        let merged = ClaimsMerging.merged(claims: vector.claims, capabilities: vector.capabilities)
        guard let expected = vector.expected else {
            #expect(merged == nil)
            return
        }
        let actual = try #require(merged)
        #expect(try Self.value(actual) == Self.value(expected), "\(actual)")
        // The merged form is compact JSON, whatever whitespace the request had.
        if !(vector.capabilities ?? []).isEmpty {
            #expect(!actual.contains(" "), "\(actual)")
        }
    }

    @Test("xms_cc is appended last to access_token, after the challenge's own members (the live CAE recording's value)")
    func recordedOrder() {
        let merged = ClaimsMerging.merged(
            claims: #"{"access_token":{"nbf":{"essential":true, "value":"1645229974"}}}"#, capabilities: ["cp1"])
        #expect(merged == #"{"access_token":{"nbf":{"essential":true,"value":"1645229974"},"xms_cc":{"values":["cp1"]}}}"#)
    }

    @Test("An xms_cc in the request is replaced by the configured capabilities; a non-object access_token too")
    func replaced() throws {
        let replaced = ClaimsMerging.merged(
            claims: #"{"access_token":{"xms_cc":{"values":["evil"]},"nbf":{"essential":true}}}"#, capabilities: ["CP1"])
        #expect(replaced == #"{"access_token":{"nbf":{"essential":true},"xms_cc":{"values":["CP1"]}}}"#)
        let scalar = ClaimsMerging.merged(claims: #"{"access_token":"x","id_token":{"acr":null}}"#, capabilities: ["CP1"])
        #expect(scalar == #"{"access_token":{"xms_cc":{"values":["CP1"]}},"id_token":{"acr":null}}"#)
    }

    @Test("Without capabilities the request is sent as the app wrote it; empty capabilities count as none")
    func passthrough() {
        let text = #"{ "id_token": {"auth_time": {"essential": true}} }"#
        #expect(ClaimsMerging.merged(claims: text, capabilities: nil) == text)
        #expect(ClaimsMerging.merged(claims: text, capabilities: []) == text)
        #expect(ClaimsMerging.merged(claims: nil, capabilities: [""]) == nil)
        #expect(ClaimsMerging.merged(claims: "", capabilities: nil) == nil)
    }

    @Test("Escapes and unicode in member names and values survive the rewrite")
    func escapes() throws {
        let claims = #"{"userinfo":{"http:\/\/example.info\/claims\/groups":null,"na\"me":{"value":"é\u00e9\n"}}}"#
        let merged = try #require(ClaimsMerging.merged(claims: claims, capabilities: ["cp1"]))
        let expected =
            #"{"access_token":{"xms_cc":{"values":["cp1"]}},"userinfo":{"http://example.info/claims/groups":null,"na\"me":{"value":"éé\n"}}}"#
        #expect(try Self.value(merged) == Self.value(expected))
    }

    @Test("Through the application: capabilities alone make a claims parameter, a claims request is merged")
    func throughTheClient() throws {
        let harness = try FlowHarness(FlowTransport([]), capabilities: ["CP1"])
        #expect(harness.app.client.claimsParameter(nil) == #"{"access_token":{"xms_cc":{"values":["CP1"]}}}"#)
        let request = try MSALClaimsRequest(jsonString: #"{"id_token":{"acr":{"essential":true}}}"#)
        let merged = try #require(harness.app.client.claimsParameter(request))
        #expect(
            try Self.value(merged) == Self.value(#"{"access_token":{"xms_cc":{"values":["CP1"]}},"id_token":{"acr":{"essential":true}}}"#))
    }

    /// A JSON text as a comparable value (objects compared without regard to member order).
    static func value(_ text: String) throws -> NSObject {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) as? NSObject)
    }
}
