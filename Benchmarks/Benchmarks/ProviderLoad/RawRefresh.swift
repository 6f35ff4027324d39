import Foundation
import MSAL
import MSALURLSession
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The same refresh the SDK sends — `POST` to the token endpoint with `client_id`, `grant_type`,
/// `refresh_token`, `scope` and `client_info` — without the SDK: the baselines for its overhead.
/// Each answer's rotated refresh token is picked out of the JSON by a byte scan and kept for the
/// user's next request; nothing else of the answer is read.
struct RawRefresh: Sendable {
    /// How the request is sent.
    enum Client: Sendable {
        /// `URLSession.data(for:)` on an ephemeral session, nothing else.
        case urlSession
        /// The SDK's default transport (`MSALCurlTransport`) alone: its own thread, limits and
        /// watchdog, but no pipeline, parsing, validation or cache.
        case curlTransport
        /// The alternative transport (`MSALURLSessionTransport`) alone.
        case urlSessionTransport
    }

    private let endpoint: URL
    private let sender: Sender
    /// User `i`'s current refresh token at index `i`.
    private let tokens: RefreshTokens

    init(client: Client, endpoint: URL, refreshTokens: [String]) {
        self.endpoint = endpoint
        self.tokens = RefreshTokens(refreshTokens)
        switch client {
        case .urlSession:
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpCookieStorage = nil
            configuration.urlCache = nil
            configuration.urlCredentialStorage = nil
            self.sender = .urlSession(URLSessionBox(session: URLSession(configuration: configuration)))
        case .curlTransport:
            self.sender = .transport(MSALCurlTransport())
        case .urlSessionTransport:
            self.sender = .transport(MSALURLSessionTransport())
        }
    }

    /// Redeems user `index`'s refresh token once and keeps the rotated one.
    func refresh(_ index: Int) async throws {
        let parameters = [
            ("client_id", LoadDirectory.clientID), ("grant_type", "refresh_token"), ("refresh_token", tokens[index]),
            ("scope", LoadDirectory.scopeParameter), ("client_info", "1"),
        ]
        let status: Int
        let answer: [UInt8]
        switch sender {
        case .urlSession(let box):
            var request = URLRequest(url: endpoint)
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded;charset=utf-8", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(MSALFormEncoding.encode(parameters).utf8)
            let (data, response) = try await box.session.data(for: request)
            status = (response as? HTTPURLResponse)?.statusCode ?? 0
            answer = Array(data)
        case .transport(let transport):
            let response = try await transport.send(.form(url: endpoint, parameters: parameters), limits: .default)
            status = response.statusCode
            answer = response.body
        }
        guard status == 200, let next = Self.refreshToken(in: answer) else {
            fail("the raw refresh of user \(index) answered \(status): \(String(decoding: answer.prefix(300), as: UTF8.self))")
        }
        tokens[index] = next
    }

    /// The string value of the top-level `refresh_token` member, found by scanning bytes.
    static func refreshToken(in json: [UInt8]) -> String? {
        let name = Array(#""refresh_token""#.utf8)
        guard json.count > name.count else { return nil }
        var index = 0
        while index + name.count <= json.count {
            if json[index] == name[0], json[index..<(index + name.count)].elementsEqual(name) { break }
            index += 1
        }
        index += name.count
        while index < json.count, json[index] == UInt8(ascii: " ") || json[index] == UInt8(ascii: ":") { index += 1 }
        guard index < json.count, json[index] == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        guard let end = json[start...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return String(decoding: json[start..<end], as: UTF8.self)
    }

    private enum Sender: Sendable {
        case urlSession(URLSessionBox)
        case transport(any MSALHTTPTransport)
    }
}

/// A `URLSession` to share between tasks.
// @unchecked Sendable: URLSession is documented thread-safe, but FoundationNetworking does not mark it Sendable.
struct URLSessionBox: @unchecked Sendable {
    let session: URLSession
}

/// The users' current refresh tokens, replaced as they rotate.
final class RefreshTokens: Sendable {
    private let tokens: Mutex<[String]>

    init(_ tokens: [String]) {
        self.tokens = Mutex(tokens)
    }

    subscript(index: Int) -> String {
        get { tokens.withLock { $0[index] } }
        set { tokens.withLock { $0[index] = newValue } }
    }
}
