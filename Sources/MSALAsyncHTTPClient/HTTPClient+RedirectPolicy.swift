import AsyncHTTPClient

/// Whether an `HTTPClient` follows redirects, as far as its configuration can be read.
enum HTTPClientRedirectPolicy: Equatable {
    case disallowed
    case follows
    /// The configuration's layout was not the one expected.
    case unknown
}

extension HTTPClient {
    /// The client's redirect setting.
    ///
    /// AsyncHTTPClient keeps `configuration` internal, so it is read by reflection: the client's
    /// `configuration`, its `redirectConfiguration`, that one's `mode` (`disallow` or
    /// `follow(…)`). A layout other than this one reads as ``HTTPClientRedirectPolicy/unknown``,
    /// which the transport refuses: it fails closed when AsyncHTTPClient changes.
    var redirectPolicy: HTTPClientRedirectPolicy {
        guard
            let configuration = Mirror(reflecting: self).descendant("configuration"),
            let mode = Mirror(reflecting: configuration).descendant("redirectConfiguration", "mode")
        else { return .unknown }
        let text = String(describing: mode)
        if text == "disallow" { return .disallowed }
        if text.hasPrefix("follow(") { return .follows }
        return .unknown
    }
}
