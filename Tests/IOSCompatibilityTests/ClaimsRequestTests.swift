import Foundation
import MSAL
import Testing

/// `MSALClaimsRequest` built claim by claim, as MSAL for iOS apps build it: `MSALIndividualClaimRequest`,
/// `MSALIndividualClaimRequestAdditionalInfo` with an `NSNumber` `essential` and `Any` values,
/// `requestClaim(_:for:)`, `removeClaimRequest(withName:target:)`, `claimsRequests(for:)`, and the
/// JSON text the request is sent as.
@Suite("MSAL for iOS: the claims request builder")
struct ClaimsRequestTests {
    static let policyID = "00000000-0000-0000-0000-000000000001"
    static let silver = "urn:mace:incommon:iap:silver"

    /// MSAL's example: capolids on the access token, auth_time and acr on the ID token.
    static let exampleJSON = """
        {
          "access_token": {"capolids": {"essential": true, "values": ["\(policyID)"]}},
          "id_token": {"auth_time": {"essential": true}, "acr": {"values": ["\(silver)"]}}
        }
        """

    /// A JSON text as a comparable value (objects compared without regard to member order).
    static func value(_ text: String) throws -> NSObject {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) as? NSObject)
    }

    /// The JSON object of `text`.
    static func dictionary(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// A claim request named `name` with additional information set by `configure`, or none.
    static func claim(
        _ name: String, _ configure: ((MSALIndividualClaimRequestAdditionalInfo) -> Void)? = nil
    ) -> MSALIndividualClaimRequest {
        let request = MSALIndividualClaimRequest(name: name)
        if let configure = configure {
            let info = MSALIndividualClaimRequestAdditionalInfo()
            configure(info)
            request.additionalInfo = info
        }
        return request
    }

    /// MSAL's example built as an app builds it.
    static func example() throws -> MSALClaimsRequest {
        let claimsRequest = MSALClaimsRequest()
        try claimsRequest.requestClaim(
            claim("capolids") {
                $0.essential = 1
                $0.values = [policyID]
            }, for: .accessToken)
        try claimsRequest.requestClaim(claim("auth_time") { $0.essential = NSNumber(value: true) }, forTarget: .idToken)
        try claimsRequest.requestClaim(claim("acr") { $0.values = [silver] }, for: .idToken)
        return claimsRequest
    }

    /// Whether `error` is MSAL's invalid-parameter error as an iOS app sees it.
    static func isInvalidParameter(_ error: Error) -> Bool {
        let nsError = error as NSError
        return nsError.domain == MSALErrorDomain && nsError.code == MSALError.internal.rawValue
            && nsError.userInfo[MSALInternalErrorCodeKey] as? Int == MSALInternalError.internalErrorInvalidParameter.rawValue
    }

    @Test("MSALClaimsRequestTarget has MSAL's cases and raw values")
    func targets() {
        #expect(MSALClaimsRequestTarget.idToken.rawValue == 0)
        #expect(MSALClaimsRequestTarget.accessToken.rawValue == 1)
        #expect(MSALClaimsRequestTarget(rawValue: 1) == .accessToken)
        #expect(MSALClaimsRequestTarget.allCases == [.idToken, .accessToken])
    }

    @Test("MSAL's example, built claim by claim, is sent as MSAL's example JSON")
    func buildsTheExample() throws {
        let claimsRequest = try Self.example()
        #expect(try Self.value(claimsRequest.jsonString() ?? "") == Self.value(Self.exampleJSON))
        #expect(claimsRequest.description == claimsRequest.jsonString())
        // Our own order: id_token first, then access_token, claims in the order requested.
        let expected =
            #"{"id_token":{"auth_time":{"essential":true},"acr":{"values":["\#(Self.silver)"]}},"#
            + #""access_token":{"capolids":{"essential":true,"values":["\#(Self.policyID)"]}}}"#
        #expect(claimsRequest.jsonString() == expected)
    }

    @Test("claimsRequests(for:) lists each target's claims in the order requested, with what was set")
    func readsTheClaims() throws {
        let claimsRequest = try Self.example()
        let idToken = claimsRequest.claimsRequests(for: .idToken) ?? []
        #expect(idToken.map { $0.name } == ["auth_time", "acr"])
        #expect(idToken.first?.additionalInfo?.essential?.boolValue == true)
        #expect(idToken.first?.additionalInfo?.values == nil)
        #expect(idToken.last?.additionalInfo?.values as? [String] == [Self.silver])
        #expect(idToken.last?.additionalInfo?.essential == nil)

        let accessToken = claimsRequest.claimsRequests(for: .accessToken) ?? []
        #expect(accessToken.map { $0.name } == ["capolids"])
        #expect(accessToken.first?.additionalInfo?.essential == NSNumber(value: true))
        #expect(accessToken.first?.additionalInfo?.values as? [String] == [Self.policyID])

        let empty = MSALClaimsRequest()
        #expect(empty.claimsRequests(for: .idToken)?.isEmpty == true)
        #expect(empty.claimsRequests(for: .accessToken)?.isEmpty == true)
        #expect(empty.jsonString() == "{}")
    }

    @Test("Requesting a claim of the same name replaces it, in its place and only for that target")
    func replaces() throws {
        let claimsRequest = try Self.example()
        try claimsRequest.requestClaim(Self.claim("auth_time") { $0.essential = 0 }, for: .idToken)
        try claimsRequest.requestClaim(Self.claim("auth_time"), for: .accessToken)

        let idToken = claimsRequest.claimsRequests(for: .idToken) ?? []
        #expect(idToken.map { $0.name } == ["auth_time", "acr"])
        #expect(idToken.first?.additionalInfo?.essential?.boolValue == false)
        #expect(claimsRequest.claimsRequests(for: .accessToken)?.map { $0.name } == ["capolids", "auth_time"])

        let json = try Self.dictionary(claimsRequest.jsonString() ?? "")
        let idTokenJSON = try #require(json["id_token"] as? [String: Any])
        #expect((idTokenJSON["auth_time"] as? [String: Any])?["essential"] as? Bool == false)
        #expect((idTokenJSON["auth_time"] as? [String: Any])?.count == 1)
        #expect((json["access_token"] as? [String: Any])?["auth_time"] is NSNull)
    }

    @Test("The request keeps a copy: changing the claim after requesting it changes nothing until it is requested again")
    func copiesTheClaim() throws {
        let claimsRequest = MSALClaimsRequest()
        let acr = Self.claim("acr") { $0.values = ["c1"] }
        try claimsRequest.requestClaim(acr, for: .idToken)
        acr.additionalInfo?.values = ["c2"]
        acr.name = "acrs"
        #expect(claimsRequest.jsonString() == #"{"id_token":{"acr":{"values":["c1"]}}}"#)
        claimsRequest.claimsRequests(for: .idToken)?.first?.additionalInfo?.essential = 1
        #expect(claimsRequest.jsonString() == #"{"id_token":{"acr":{"values":["c1"]}}}"#)
        try claimsRequest.requestClaim(acr, for: .idToken)
        #expect(claimsRequest.jsonString() == #"{"id_token":{"acr":{"values":["c1"]},"acrs":{"values":["c2"]}}}"#)
    }

    @Test("removeClaimRequest(withName:target:) removes the claim from that target only")
    func removes() throws {
        let claimsRequest = try Self.example()
        try claimsRequest.requestClaim(Self.claim("acr"), for: .accessToken)
        try claimsRequest.removeClaimRequest(withName: "acr", target: .idToken)
        #expect(claimsRequest.claimsRequests(for: .idToken)?.map { $0.name } == ["auth_time"])
        #expect(claimsRequest.claimsRequests(for: .accessToken)?.map { $0.name } == ["capolids", "acr"])

        try claimsRequest.removeClaimRequest(withName: "auth_time", target: .idToken)
        #expect(claimsRequest.claimsRequests(for: .idToken)?.isEmpty == true)
        // A target left without claims is not written.
        let json = try Self.dictionary(claimsRequest.jsonString() ?? "")
        #expect(json["id_token"] == nil)
        #expect(Array(json.keys) == ["access_token"])
    }

    @Test("Removing a claim that is not requested throws MSAL's invalid-parameter error")
    func removingAnAbsentClaimThrows() throws {
        let claimsRequest = try Self.example()
        let absent: [(String, MSALClaimsRequestTarget)] = [("missing", .idToken), ("capolids", .idToken), ("acr", .accessToken)]
        for (name, target) in absent {
            do {
                try claimsRequest.removeClaimRequest(withName: name, target: target)
                Issue.record("removing \(name) from \(target) succeeded")
            } catch {
                #expect(Self.isInvalidParameter(error), "\(error)")
            }
        }
        #expect(try Self.value(claimsRequest.jsonString() ?? "") == Self.value(Self.exampleJSON))
    }

    @Test("A claim without additional information, or with none of it set, is sent as null")
    func claimWithoutInfoIsNull() throws {
        let claimsRequest = MSALClaimsRequest()
        try claimsRequest.requestClaim(MSALIndividualClaimRequest(name: "acr"), for: .idToken)
        #expect(claimsRequest.jsonString() == #"{"id_token":{"acr":null}}"#)
        try claimsRequest.requestClaim(Self.claim("email") { _ in }, for: .idToken)
        #expect(claimsRequest.jsonString() == #"{"id_token":{"acr":null,"email":null}}"#)
        #expect(claimsRequest.claimsRequests(for: .idToken)?.first?.additionalInfo == nil)
    }

    @Test("value and values take JSON-compatible Foundation values; anything else is sent as null")
    func additionalInfoValues() throws {
        let info = MSALIndividualClaimRequestAdditionalInfo()
        #expect(info.essential == nil && info.value == nil && info.values == nil)
        info.value = ["b": [true, "x", 2.5, NSNull()] as [Any], "a": 3] as [String: Any]
        info.values = ["one", 2, false, NSNumber(value: 7), [1, 2]] as [Any]
        let dictionary = try #require(info.value as? [String: Any])
        #expect(dictionary["a"] as? Int == 3)
        #expect(info.values?.first as? String == "one")
        #expect(info.values?[1] as? Int == 2)
        #expect(info.values?[2] as? Bool == false)
        #expect(info.values?[3] as? Int == 7)

        let claimsRequest = MSALClaimsRequest()
        let request = MSALIndividualClaimRequest(name: "custom")
        request.additionalInfo = info
        try claimsRequest.requestClaim(request, for: .accessToken)
        #expect(
            try Self.value(claimsRequest.jsonString() ?? "")
                == Self.value(
                    #"{"access_token":{"custom":{"value":{"a":3,"b":[true,"x",2.5,null]},"values":["one",2,false,7,[1,2]]}}}"#))

        // NSNull is a value (null); nil is no value.
        info.value = NSNull()
        info.values = nil
        #expect(info.value is NSNull)
        try claimsRequest.requestClaim(request, for: .accessToken)
        #expect(claimsRequest.jsonString() == #"{"access_token":{"custom":{"value":null}}}"#)

        // Not JSON: kept as null rather than failing when the request is sent.
        info.value = Date()
        info.values = [URL(fileURLWithPath: "/tmp"), "kept", Double.nan]
        #expect(info.value is NSNull)
        try claimsRequest.requestClaim(request, for: .accessToken)
        #expect(claimsRequest.jsonString() == #"{"access_token":{"custom":{"value":null,"values":[null,"kept",null]}}}"#)
    }

    @Test("init(jsonString:) reads MSAL's example; jsonString() writes the same request back")
    func roundTrip() throws {
        let claimsRequest = try MSALClaimsRequest(jsonString: Self.exampleJSON)
        #expect(try Self.value(claimsRequest.jsonString() ?? "") == Self.value(Self.exampleJSON))
        #expect(claimsRequest.claimsRequests(for: .idToken)?.map { $0.name } == ["auth_time", "acr"])
        let capolids = try #require(claimsRequest.claimsRequests(for: .accessToken)?.first)
        #expect(capolids.name == "capolids")
        #expect(capolids.additionalInfo?.essential?.boolValue == true)
        #expect(capolids.additionalInfo?.values as? [String] == [Self.policyID])

        // What was read can be changed like a request built by hand.
        let nbf = Self.claim("nbf") {
            $0.value = "1645229974"
            $0.essential = true
        }
        try claimsRequest.requestClaim(nbf, for: .accessToken)
        try claimsRequest.removeClaimRequest(withName: "capolids", target: .accessToken)
        let again = try MSALClaimsRequest(jsonString: try #require(claimsRequest.jsonString()))
        #expect(again.jsonString() == claimsRequest.jsonString())
        #expect(
            try Self.value(again.jsonString() ?? "")
                == Self.value(
                    #"{"id_token":{"auth_time":{"essential":true},"acr":{"values":["\#(Self.silver)"]}},"#
                        + #""access_token":{"nbf":{"essential":true,"value":"1645229974"}}}"#))

        // A continuous access evaluation challenge, null claims and a null value, an empty request.
        let challenge = try MSALClaimsRequest(jsonString: #"{"access_token":{"nbf":{"essential":true, "value":"1645229974"}}}"#)
        #expect(challenge.jsonString() == #"{"access_token":{"nbf":{"essential":true,"value":"1645229974"}}}"#)
        let nulls = try MSALClaimsRequest(jsonString: #"{"id_token":{"acr":null,"email":{"value":null},"level":{"essential":1}}}"#)
        #expect(nulls.jsonString() == #"{"id_token":{"acr":null,"email":{"value":null},"level":{"essential":true}}}"#)
        #expect(nulls.claimsRequests(for: .idToken)?[1].additionalInfo?.value is NSNull)
        #expect(try MSALClaimsRequest(jsonString: " {} \n").jsonString() == "{}")
    }

    @Test("init(jsonString:) rejects what MSAL for iOS rejects, with MSAL's invalid-parameter error")
    func rejects() {
        let invalid = [
            "", "not json", "[]", #""text""#, "null",
            #"{"userinfo":{"email":null}}"#,
            #"{"id_token":{"acr":null},"userinfo":{}}"#,
            #"{"id_token":[]}"#,
            #"{"access_token":null}"#,
            #"{"id_token":{"acr":"urn:silver"}}"#,
            #"{"id_token":{"acr":{}}}"#,
            #"{"id_token":{"acr":{"other":1}}}"#,
            #"{"id_token":{"acr":{"essential":"yes"}}}"#,
            #"{"id_token":{"acr":{"essential":null}}}"#,
            #"{"id_token":{"acr":{"values":"urn:silver"}}}"#,
            #"{"id_token":{"acr":null,"acr":null}}"#,
        ]
        for text in invalid {
            do {
                let request = try MSALClaimsRequest(jsonString: text)
                Issue.record("accepted \(text) as \(request.jsonString())")
            } catch {
                #expect(Self.isInvalidParameter(error), "\(text): \(error)")
            }
        }
    }

    @Test("Claims requested from eight threads at once are all there")
    func concurrentRequests() throws {
        let claimsRequest = MSALClaimsRequest()
        let perThread = 50
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<perThread {
                let target: MSALClaimsRequestTarget = thread.isMultiple(of: 2) ? .idToken : .accessToken
                let request = Self.claim("claim_\(thread)_\(index)") { $0.values = [thread, index] }
                do {
                    try claimsRequest.requestClaim(request, for: target)
                } catch {
                    Issue.record("\(error)")
                }
                _ = claimsRequest.jsonString()
                _ = claimsRequest.claimsRequests(for: target)?.count
            }
        }
        let idToken = Set(claimsRequest.claimsRequests(for: .idToken)?.map { $0.name } ?? [])
        let accessToken = Set(claimsRequest.claimsRequests(for: .accessToken)?.map { $0.name } ?? [])
        func names(_ threads: [Int]) -> Set<String> {
            Set(threads.flatMap { thread in (0..<perThread).map { "claim_\(thread)_\($0)" } })
        }
        #expect(idToken == names([0, 2, 4, 6]))
        #expect(accessToken == names([1, 3, 5, 7]))
        let json = try Self.dictionary(claimsRequest.jsonString() ?? "")
        #expect((json["id_token"] as? [String: Any])?.count == 4 * perThread)
        #expect((json["access_token"] as? [String: Any])?.count == 4 * perThread)
    }

    @Test("The request is set on the token parameters, as iOS apps set it")
    func onTokenParameters() throws {
        let claimsRequest = try Self.example()
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: MSALWebviewParameters())
        #expect(parameters.claimsRequest == nil)
        parameters.claimsRequest = claimsRequest
        #expect(parameters.claimsRequest === claimsRequest)
        #expect(parameters.claimsRequest?.jsonString() == claimsRequest.jsonString())
        parameters.claimsRequest = nil
        #expect(parameters.claimsRequest == nil)
    }
}
