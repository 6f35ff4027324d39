import Foundation
import MSALEmulator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The app's call to the emulator's protected resource (`GET /resource/me`), as an app calls an
/// API with a token: plain `URLSession`, the result's `Authorization` header.
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
        var request = URLRequest(url: url, timeoutInterval: 10)
        if let authorization {
            request.setValue(authorization, forHTTPHeaderField: "Authorization")
        }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
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
