import Foundation
import MSALJOSE

/// The small static pages the loopback listener answers the browser with.
///
/// Only the redirect's `error` and `error_description` ever reach a page, and only after
/// ``sanitize(_:limit:)``: control and bidirectional-override characters removed, shortened, HTML-escaped.
package struct LoopbackPages: Sendable {
    /// The most characters of a value from the request shown in a page.
    package static let echoLimit = 512

    /// The page after a successful redirect.
    package var successHTML: String
    /// The failure page template, with `{{error}}` and `{{error_description}}` placeholders.
    package var failureTemplate: String
    /// Whether the pages are the built-in ones (served with a restrictive content security policy).
    package var isBuiltInSuccess: Bool
    /// Whether the failure template is the built-in one.
    package var isBuiltInFailure: Bool

    /// The pages, with the app's overrides where given.
    package init(successHTML: String?, failureTemplate: String?) {
        self.successHTML = successHTML ?? Self.defaultSuccessHTML
        self.failureTemplate = failureTemplate ?? Self.defaultFailureTemplate
        self.isBuiltInSuccess = successHTML == nil
        self.isBuiltInFailure = failureTemplate == nil
    }

    /// The failure page for `error` and `description`, both sanitized.
    package func failureHTML(error: String?, description: String?) -> String {
        Self.fill(
            failureTemplate,
            values: [
                "{{error}}": Self.sanitize(error ?? "invalid_redirect"),
                "{{error_description}}": Self.sanitize(description ?? ""),
            ])
    }

    /// `text` without control or bidirectional-formatting characters, cut to `limit` characters, HTML-escaped.
    package static func sanitize(_ text: String, limit: Int = echoLimit) -> String {
        let (kept, truncated) = visible(text, limit: limit)
        var escaped = ""
        escaped.reserveCapacity(kept.count + 16)
        for scalar in kept {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return truncated ? escaped + "\u{2026}" : escaped
    }

    /// `text` without control or bidirectional-formatting characters, cut to `limit` characters, for a log
    /// line or an error message (not HTML-escaped).
    package static func plainText(_ text: String, limit: Int = echoLimit) -> String {
        let (kept, truncated) = visible(text, limit: limit)
        return truncated ? String(kept) + "\u{2026}" : String(kept)
    }

    private static func visible(_ text: String, limit: Int) -> (String.UnicodeScalarView, truncated: Bool) {
        var kept = String.UnicodeScalarView()
        var count = 0
        for scalar in text.unicodeScalars where !UntrustedText.isUnsafe(scalar) {
            guard count < limit else { return (kept, true) }
            kept.append(scalar)
            count += 1
        }
        return (kept, false)
    }

    /// `template` with each placeholder replaced in one pass: inserted text is never scanned again.
    private static func fill(_ template: String, values: [String: String]) -> String {
        var result = ""
        var rest = Substring(template)
        while let open = rest.range(of: "{{") {
            result += rest[..<open.lowerBound]
            let tail = rest[open.lowerBound...]
            if let (placeholder, value) = values.first(where: { tail.hasPrefix($0.key) }) {
                result += value
                rest = tail.dropFirst(placeholder.count)
            } else {
                result += "{{"
                rest = tail.dropFirst(2)
            }
        }
        result += rest
        return result
    }

    /// The built-in success page.
    package static let defaultSuccessHTML = """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>Signed in</title></head>
        <body style="font-family: sans-serif; margin: 3em;">
        <h1>Sign-in complete</h1>
        <p>You can close this window and return to the application.</p>
        </body></html>

        """

    /// The built-in failure page template.
    package static let defaultFailureTemplate = """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>Sign-in failed</title></head>
        <body style="font-family: sans-serif; margin: 3em;">
        <h1>Sign-in did not complete</h1>
        <p>Error: <code>{{error}}</code></p>
        <p>{{error_description}}</p>
        <p>You can close this window and return to the application.</p>
        </body></html>

        """
}
