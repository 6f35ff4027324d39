/// The text of one log message, written as a string literal whose interpolations say what
/// each value is, so that personal data is masked and secrets cannot be logged at all:
///
/// ```swift
/// logger.info("Token request to \(host: url) for \(public: scopes), \(count) accounts, user \(euii: username), account \(oii: homeAccountId)", correlationID: id)
/// ```
///
/// - `\(value)` takes only ``MSALLogSafe`` values: numbers, `Bool`, `UUID`, swift-msal's codes.
///   A `String` does not compile here.
/// - `\(public: text)` is text that names no one: endpoint paths, scope names, error codes.
/// - `\(euii: text)` (or `\(pii: text)`) is end-user identifiable information: usernames,
///   display names, email addresses. Shown only at ``MSALLogMaskingLevel/settingsMaskSecretsOnly``.
/// - `\(oii: text)` is organizational or pseudonymous identifiers: home account ids, object ids,
///   tenant ids, tenant profiles. Shown from ``MSALLogMaskingLevel/settingsMaskEUIIOnly`` on.
/// - `\(host: url)` is the host of a URL (never its path or query).
/// - `\(error: error)` is an error's codes and description, with email addresses masked as EUII.
///
/// There is no interpolation for secrets (tokens, codes, verifiers, assertions): they are never
/// logged. As a last line of defence every rendered message also passes through
/// ``MSALLogRedaction/redactingSecrets(in:)``.
package struct MSALLogMessage: Sendable, ExpressibleByStringInterpolation {
    /// The class of a piece of personal data.
    package enum PersonalData: Sendable, Hashable {
        /// End-user identifiable information: usernames, names, email addresses.
        case euii
        /// Organizational and pseudonymous identifiers: account, object and tenant ids.
        case oii
    }

    /// A piece of the message.
    package enum Segment: Sendable {
        /// Literal text of the source code.
        case literal(StaticString)
        /// Text declared safe: a ``MSALLogSafe`` value or `\(public:)` text.
        case text(String)
        /// Personal data, masked unless the masking level shows its class.
        case personal(String?, PersonalData)
        /// Text swift-msal did not write (error descriptions): email addresses in it are EUII.
        case diagnostic(String)
    }

    /// What masked personal data reads as.
    package static let maskedValue = "Masked(not-null)"
    /// What absent (nil or empty) masked personal data reads as.
    package static let maskedNull = "Masked(null)"
    /// What absent personal data reads as when shown.
    package static let null = "(null)"

    /// The pieces, in order.
    package var segments: [Segment]

    /// A message without interpolations.
    package init(stringLiteral value: StaticString) {
        segments = [.literal(value)]
    }

    /// A message with interpolations.
    package init(stringInterpolation: StringInterpolation) {
        segments = stringInterpolation.segments
    }

    /// The text at `maskingLevel`, secrets redacted, and whether it shows personal data.
    package func rendered(maskingLevel: MSALLogMaskingLevel) -> (text: String, containsPII: Bool) {
        var text = ""
        var containsPII = false
        for segment in segments {
            switch segment {
            case .literal(let literal):
                text += literal.description
            case .text(let value):
                text += value
            case .personal(let value, let kind):
                let shown = kind == .euii ? maskingLevel.showsEUII : maskingLevel.showsOII
                if let value, !value.isEmpty {
                    if shown {
                        text += value
                        containsPII = true
                    } else {
                        text += Self.maskedValue
                    }
                } else {
                    text += shown ? (value ?? Self.null) : Self.maskedNull
                }
            case .diagnostic(let value):
                if maskingLevel.showsEUII {
                    text += value
                    containsPII = containsPII || MSALLogRedaction.maskingEmailAddresses(in: value).found
                } else {
                    text += MSALLogRedaction.maskingEmailAddresses(in: value).text
                }
            }
        }
        return (MSALLogRedaction.redactingSecrets(in: text), containsPII)
    }
}
