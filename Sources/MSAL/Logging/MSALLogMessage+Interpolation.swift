import Foundation

extension MSALLogMessage {
    /// The interpolations a log message accepts; see ``MSALLogMessage``.
    package struct StringInterpolation: StringInterpolationProtocol, Sendable {
        /// The pieces so far.
        package var segments: [Segment]

        /// Starts an empty message.
        package init(literalCapacity: Int, interpolationCount: Int) {
            segments = []
            segments.reserveCapacity(2 * interpolationCount + 1)
        }

        /// Source text between interpolations.
        package mutating func appendLiteral(_ literal: StaticString) {
            if literal.utf8CodeUnitCount > 0 { segments.append(.literal(literal)) }
        }

        /// A value that is always safe to show: a number, `Bool`, `UUID` or swift-msal code.
        package mutating func appendInterpolation(_ value: some MSALLogSafe) {
            segments.append(.text(value.msalLogText))
        }

        /// A safe value that may be absent, shown as `(null)` then.
        package mutating func appendInterpolation(_ value: (some MSALLogSafe)?) {
            segments.append(.text(value?.msalLogText ?? MSALLogMessage.null))
        }

        /// Text that names no one (endpoint paths, scope names, error codes), shown as is.
        package mutating func appendInterpolation(public value: String?) {
            segments.append(.text(value ?? MSALLogMessage.null))
        }

        /// Texts that name no one (scopes, parameter names), joined by spaces.
        package mutating func appendInterpolation(public values: some Sequence<String>) {
            segments.append(.text(values.joined(separator: " ")))
        }

        /// End-user identifiable information (username, display name, email address): masked
        /// unless the masking level is ``MSALLogMaskingLevel/settingsMaskSecretsOnly``.
        package mutating func appendInterpolation(euii value: String?) {
            segments.append(.personal(value, .euii))
        }

        /// Personal data of unknown class, treated as EUII (the stricter).
        package mutating func appendInterpolation(pii value: String?) {
            segments.append(.personal(value, .euii))
        }

        /// An organizational or pseudonymous identifier (home account id, object id, tenant id,
        /// tenant profile): masked at ``MSALLogMaskingLevel/settingsMaskAllPII``.
        package mutating func appendInterpolation(oii value: String?) {
            segments.append(.personal(value, .oii))
        }

        /// The host of `url`; its path, query and fragment are left out.
        package mutating func appendInterpolation(host url: URL?) {
            segments.append(.text(url?.host ?? MSALLogMessage.null))
        }

        /// An error: for an ``MSALFailure`` its codes, OAuth error, HTTP status and message; for
        /// another its type and description. Email addresses in the text are masked as EUII.
        package mutating func appendInterpolation(error: any Error) {
            guard let error = error as? MSALFailure else {
                if error is CancellationError {
                    segments.append(.text("CancellationError"))
                } else {
                    segments.append(.text("\(type(of: error)): "))
                    segments.append(.diagnostic(String(describing: error)))
                }
                return
            }
            var codes = "MSALError \(error.code.msalLogText)"
            if let internalCode = error.internalCode {
                codes += ", internal \(internalCode.msalLogText)"
            }
            if let status = error.httpStatusCode {
                codes += ", HTTP \(status)"
            }
            if let stsErrorCodes = error.stsErrorCodes, !stsErrorCodes.isEmpty {
                codes += ", STS " + stsErrorCodes.map(String.init).joined(separator: " ")
            }
            if error.isThrottlingCacheHit {
                codes += ", throttled"
            }
            segments.append(.text(codes))
            if let oauthError = error.oauthError {
                segments.append(.text(", oauth "))
                segments.append(.diagnostic(oauthError + (error.oauthSubError.map { "/" + $0 } ?? "")))
            }
            segments.append(.text(": "))
            segments.append(.diagnostic(error.message))
        }
    }
}
