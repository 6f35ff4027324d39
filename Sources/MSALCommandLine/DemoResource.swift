import Foundation
import MSAL
import MSALEmulator

/// The app's call to the emulator's protected resource (`GET /resource/me`), as an app calls an
/// API with a token: a plain `GET` with the result's `Authorization` header, through swift-msal's
/// own HTTP transport (not `URLSession`, whose FoundationNetworking would link libcurl into every
/// `msal` process, where the transport loads it only for a command that sends a request).
struct DemoResource: Sendable {
    /// What the resource answered.
    struct Answer: Sendable {
        var status: Int
        /// The JSON object it returned (empty when it returned none).
        var user: [String: String]
    }

    let url: URL

    /// `GET` the resource with `authorization` (for example `Bearer eyJ…`), or with no header.
    func get(authorization: String?) async throws -> Answer {
        var headers: MSALHTTPHeaders = [:]
        if let authorization { headers.add(name: "Authorization", value: authorization) }
        let response = try await MSALCurlTransport().send(
            MSALHTTPRequest(method: .get, url: url, headers: headers), limits: MSALHTTPLimits(totalTimeout: 10))
        let status = response.statusCode
        let data = Data(response.body)
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        var user: [String: String] = [:]
        for (name, value) in object {
            if let text = value as? String {
                user[name] = text
            } else if let list = value as? [String] {
                user[name] = list.joined(separator: " ")
            }
        }
        return Answer(status: status, user: user)
    }
}
