import MSALSupport

/// `application/x-www-form-urlencoded` encoding (WHATWG URL standard), shared by requests and the replay matcher.
public enum MSALFormEncoding {
    /// Encodes parameters in order.
    public static func encode(_ parameters: [(String, String)]) -> String {
        parameters.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    /// Decodes a form or query string; `+` is a space. A name or value with a bad `%` escape, or
    /// whose decoded bytes are not UTF-8, is kept exactly as written (the package's one decoding
    /// rule refuses it; this method, which never fails, returns the raw text instead).
    public static func decode(_ string: String) -> [(String, String)] {
        guard !string.isEmpty else { return [] }
        return string.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            if let equals = pair.firstIndex(of: "=") {
                return (unescape(pair[..<equals]), unescape(pair[pair.index(after: equals)...]))
            }
            return (unescape(pair[...]), "")
        }
    }

    /// Percent-encodes everything but `A–Z a–z 0–9 * - . _`, and spaces as `+`.
    public static func escape(_ string: String) -> String {
        PercentEncoding.encode(string, unescaped: "*-._", spaceAsPlus: true)
    }

    private static func unescape(_ part: Substring) -> String {
        PercentEncoding.decodeFormComponent(part) ?? String(part)
    }
}
