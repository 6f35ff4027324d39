import Foundation

extension TokenCacheDocument {
    /// Whether the document holds an access or a refresh token. A store may delete a document (a
    /// partition) that holds none: an account without them cannot be served silently.
    package var hasTokens: Bool {
        !self[.accessToken].isEmpty || !self[.refreshToken].isEmpty
    }

    /// When every token in the document will have expired, if that is known: the latest access
    /// token expiry when the document holds no refresh token (which has no expiry), else `nil`. A
    /// store may let a document (a partition of the application's own tokens, which come without
    /// refresh tokens) expire then.
    package var expiryOfEveryToken: Date? {
        guard self[.refreshToken].isEmpty else { return nil }
        var latest: Int64?
        for entry in self[.accessToken].values {
            guard let text = entry[.expiresOn], let seconds = Int64(text) else { continue }
            latest = max(latest ?? seconds, seconds)
        }
        return latest.map { Date(timeIntervalSince1970: Double($0)) }
    }
}
