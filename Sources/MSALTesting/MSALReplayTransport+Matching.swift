import Foundation

/// The parts of a URL the replay matcher compares, normalised once.
struct ReplayURLKey: Sendable, Hashable {
    var scheme: String
    var host: String
    var port: Int?
    var path: String
    /// Decoded (name, value) query pairs, sorted, so order does not matter but repeats do.
    var query: [ReplayPair]

    init(_ url: URL) {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        scheme = (components?.scheme ?? "").lowercased()
        host = (components?.host ?? "").lowercased()
        port = components?.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
        path = components?.percentEncodedPath ?? ""
        query = MSALFormEncoding.decode(components?.percentEncodedQuery ?? "").map { ReplayPair(name: $0.0, value: $0.1) }.sorted()
    }
}

/// A decoded query or form parameter.
struct ReplayPair: Sendable, Hashable, Comparable, CustomStringConvertible {
    var name: String
    var value: String

    static func < (lhs: ReplayPair, rhs: ReplayPair) -> Bool {
        (lhs.name, lhs.value) < (rhs.name, rhs.value)
    }

    var description: String { "\(name)=\(value)" }
}

/// How far a sent request got in matching one interaction: a later stage is closer, and within a
/// stage a higher closeness (such as the same host with another port) is closer.
struct ReplayMismatch: Comparable {
    enum Stage: Int, Comparable {
        case method, origin, path, query, headers, form
        /// Everything matches, but the interaction was already used and is not repeatable.
        case alreadyUsed

        static func < (lhs: Stage, rhs: Stage) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    var stage: Stage
    var closeness = 0
    var reason: String

    static let alreadyUsed = ReplayMismatch(stage: .alreadyUsed, reason: "it matches, but it was already used and is not repeatable")

    static func < (lhs: ReplayMismatch, rhs: ReplayMismatch) -> Bool {
        (lhs.stage, lhs.closeness) < (rhs.stage, rhs.closeness)
    }

    static func == (lhs: ReplayMismatch, rhs: ReplayMismatch) -> Bool {
        lhs.stage == rhs.stage && lhs.closeness == rhs.closeness
    }
}

/// One interaction prepared for matching.
struct ReplayCandidate: Sendable {
    let index: Int
    let interaction: MSALRecordedFixture.Interaction
    let key: ReplayURLKey
    let response: MSALHTTPResponse

    init(index: Int, interaction: MSALRecordedFixture.Interaction) {
        self.index = index
        self.interaction = interaction
        self.key = ReplayURLKey(interaction.request.url)
        self.response = interaction.response.httpResponse
    }

    var label: String {
        "interactions[\(index)] (\(interaction.request.method) \(interaction.request.url.absoluteString))"
    }

    /// `nil` when `request` matches; otherwise the first difference found.
    func mismatch(for request: MSALHTTPRequest, key sent: ReplayURLKey) -> ReplayMismatch? {
        let recorded = interaction.request
        if request.method.rawValue != recorded.method.rawValue {
            return ReplayMismatch(stage: .method, reason: "method differs (sent \(request.method), recorded \(recorded.method))")
        }
        if sent.scheme != key.scheme || sent.host != key.host || sent.port != key.port {
            let closeness = (sent.host == key.host ? 2 : 0) + (sent.scheme == key.scheme ? 1 : 0)
            return ReplayMismatch(
                stage: .origin, closeness: closeness,
                reason: "origin differs (sent \(Self.origin(sent)), recorded \(Self.origin(key)))")
        }
        if sent.path != key.path {
            let common = zip(sent.path.utf8, key.path.utf8).prefix { $0 == $1 }.count
            return ReplayMismatch(stage: .path, closeness: common, reason: "path differs (sent \(sent.path), recorded \(key.path))")
        }
        if sent.query != key.query {
            let missing = Self.difference(key.query, sent.query)
            let extra = Self.difference(sent.query, key.query)
            var parts: [String] = []
            if !missing.isEmpty { parts.append("missing \(missing.map(\.description).joined(separator: "&"))") }
            if !extra.isEmpty { parts.append("unexpected \(extra.map(\.description).joined(separator: "&"))") }
            return ReplayMismatch(
                stage: .query, closeness: -(missing.count + extra.count),
                reason: "query differs (\(parts.joined(separator: "; ")))")
        }
        for field in recorded.headers where !request.headers.values(of: field.name).contains(field.value) {
            if request.headers.contains(field.name) {
                return ReplayMismatch(stage: .headers, reason: "header \(field.name) has another value (recorded \"\(field.value)\")")
            }
            return ReplayMismatch(stage: .headers, reason: "header \(field.name) is missing (recorded \"\(field.value)\")")
        }
        if let form = recorded.form {
            guard let contentType = request.headers["Content-Type"],
                contentType.lowercased().hasPrefix("application/x-www-form-urlencoded"), request.body != nil
            else {
                return ReplayMismatch(stage: .form, reason: "the request has no application/x-www-form-urlencoded body")
            }
            let sentParameters = request.formParameters
            for name in form.keys.sorted() {
                let values = sentParameters.filter { $0.0 == name }.map(\.1)
                if values.isEmpty {
                    return ReplayMismatch(stage: .form, reason: "form parameter \(name) is missing (recorded \"\(form[name]!)\")")
                }
                if !values.contains(form[name]!) {
                    return ReplayMismatch(stage: .form, reason: "form parameter \(name) has another value (recorded \"\(form[name]!)\")")
                }
            }
        }
        return nil
    }

    private static func origin(_ key: ReplayURLKey) -> String {
        "\(key.scheme)://\(key.host)" + (key.port.map { ":\($0)" } ?? "")
    }

    /// The pairs of `a` not matched one-for-one in `b`.
    private static func difference(_ a: [ReplayPair], _ b: [ReplayPair]) -> [ReplayPair] {
        var remaining = b
        var result: [ReplayPair] = []
        for pair in a {
            if let index = remaining.firstIndex(of: pair) {
                remaining.remove(at: index)
            } else {
                result.append(pair)
            }
        }
        return result
    }
}
