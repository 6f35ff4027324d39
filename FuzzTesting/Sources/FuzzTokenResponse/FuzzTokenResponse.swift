// Token endpoint responses: success bodies, error bodies and device authorization bodies
// (`@_spi(Fuzzing)` entry points of MSAL).
//
// Input: a response body, read as each of them.
//
// Invariants:
// - A success body that parses has a non-empty access token and lifetimes within 0...1 year; saved
//   into an empty cache it gives a document that reads back to the same bytes.
// - The error the SDK reports for an error body has a message, OAuth error and sub-error without
//   control characters, an OAuth error cut at 128 characters (escapes aside), and the code the
//   mapping gives (interaction required on a refresh unless the client itself is wrong).
// - A device authorization body that parses has an interval of 1...60 s, a lifetime of
//   1...3600 s, an http(s) verification URI, and a message without control characters.
// - Anything else ends in an MSALFailure with `invalidResponse` (when saving, any typed internal
//   error: the ID token or client_info may be what is wrong).

import Foundation
import FuzzCheck
@_spi(Fuzzing) import MSAL

/// libFuzzer's entry point: reads the input as a token success body, as an error body for each
/// status and grant, and as a device authorization body; returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTokenResponse(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let body = fuzzBytes(data, size)
    checkSuccess(body)
    for status in [400, 401, 403, 429, 500] {
        for grant in MSALFuzzingSupport.Grant.allCases {
            checkError(status: status, body: body, grant: grant)
        }
    }
    checkDeviceCode(body)
    return 0
}

func checkSuccess(_ body: [UInt8]) {
    let maximum = MSALFuzzingSupport.maximumTokenLifetime
    let response: MSALFuzzingSupport.ParsedTokenResponse
    do throws(MSALFailure) {
        response = try MSALFuzzingSupport.parseTokenResponse(body)
    } catch {
        fuzzCheck(
            error.internalCode == .internalErrorInvalidResponse, "token response failed with \(String(describing: error.internalCode))")
        return
    }
    fuzzCheck(!response.accessToken.isEmpty, "a token response without access token parsed")
    for (name, value) in [
        ("expires_in", response.expiresIn), ("ext_expires_in", response.extendedExpiresIn), ("refresh_in", response.refreshIn),
    ] {
        guard let value else { continue }
        fuzzCheck((0...maximum).contains(value), "\(name) \(value) is outside 0...\(maximum)")
    }

    let document: [UInt8]
    do throws(MSALFailure) {
        document = try MSALFuzzingSupport.cacheDocumentSaving(
            body, clientID: "fuzz-client", environment: "login.windows.net", tenant: "common", now: 1_767_225_600)
    } catch {
        fuzzCheck(
            error.code == .internal && error.internalCode != nil,
            "saving a token response failed with \(String(describing: error.internalCode)): \(error.message)")
        return
    }
    guard let loaded = try? MSALFuzzingSupport.loadCache(document) else {
        fuzzCheck(false, "the cache written for a token response does not read back")
        return
    }
    fuzzCheck(loaded.serialized == document, "the cache written for a token response reads back differently")
    fuzzCheck(loaded.entryCount >= 2, "a saved token response left \(loaded.entryCount) entries")
    fuzzCheck(loaded.indexSummary == loaded.rebuiltIndexSummary, "the index of a saved token response differs from a rebuilt one")
}

func checkError(status: Int, body: [UInt8], grant: MSALFuzzingSupport.Grant) {
    let error = MSALFuzzingSupport.tokenEndpointError(status: status, body: body, grant: grant)
    fuzzCheck(!fuzzHasControlCharacter(error.message), "error message has a control character: \(error.message.debugDescription)")
    fuzzCheck(error.httpStatusCode == status, "error lost its HTTP status")
    if let oauthError = error.oauthError {
        fuzzCheck(!fuzzHasControlCharacter(oauthError), "oauthError has a control character")
        // 128 characters kept, each control character written as an escape of up to 7 (`\u{9f}`), plus "…".
        fuzzCheck(oauthError.unicodeScalars.count <= 128 * 7 + 1, "oauthError of \(oauthError.unicodeScalars.count) characters kept")
    }
    if let subError = error.oauthSubError {
        fuzzCheck(!fuzzHasControlCharacter(subError), "oauthSubError has a control character")
    }
    switch (grant, error.oauthError?.lowercased()) {
    case (_, nil), (_, ""):
        fuzzCheck(error.code == .internal, "an error body without error mapped to \(error.code)")
    case (.refreshToken, let oauth?) where oauth != "invalid_client" && oauth != "invalid_scope" && oauth != "invalid_tenant":
        fuzzCheck(
            [.interactionRequired, .serverError, .userCanceled, .serverProtectionPoliciesRequired].contains(error.code),
            "refresh error \(oauth) mapped to \(error.code)")
    default:
        break
    }
}

func checkDeviceCode(_ body: [UInt8]) {
    let limits = MSALFuzzingSupport.deviceCodeLimits
    do throws(MSALFailure) {
        let response = try MSALFuzzingSupport.parseDeviceCodeResponse(body)
        fuzzCheck((1...limits.interval).contains(response.interval), "device code interval \(response.interval)")
        fuzzCheck((1...limits.lifetime).contains(response.expiresIn), "device code lifetime \(response.expiresIn)")
        let scheme = response.verificationURI.scheme?.lowercased()
        fuzzCheck(scheme == "https" || scheme == "http", "verification URI \(response.verificationURI) is not http(s)")
        fuzzCheck(
            !fuzzHasControlCharacter(response.message), "device code message has a control character: \(response.message.debugDescription)")
    } catch {
        fuzzCheck(
            error.internalCode == .internalErrorInvalidResponse,
            "device code response failed with \(String(describing: error.internalCode))")
    }
}
