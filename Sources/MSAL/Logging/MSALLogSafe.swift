import Foundation

/// A value that may appear bare in a log message (`"\(value)"`): its text never identifies a
/// person and never carries a secret.
///
/// Numbers, booleans, UUIDs (correlation ids) and swift-msal's own codes conform. `String` does
/// not and must not: text goes in with a label that says what it is, `\(public:)`, `\(oii:)` or
/// `\(euii:)` (see ``MSALLogMessage``). Conform only types whose every value is safe to show.
package protocol MSALLogSafe {
    /// The text logged for this value.
    var msalLogText: String { get }
}

extension MSALLogSafe where Self: RawRepresentable, RawValue == Int {
    /// The case name and raw value, as `interactionRequired (-50002)`.
    package var msalLogText: String { "\(self) (\(rawValue))" }
}

extension Int: MSALLogSafe { package var msalLogText: String { String(self) } }
extension Int8: MSALLogSafe { package var msalLogText: String { String(self) } }
extension Int16: MSALLogSafe { package var msalLogText: String { String(self) } }
extension Int32: MSALLogSafe { package var msalLogText: String { String(self) } }
extension Int64: MSALLogSafe { package var msalLogText: String { String(self) } }
extension UInt: MSALLogSafe { package var msalLogText: String { String(self) } }
extension UInt8: MSALLogSafe { package var msalLogText: String { String(self) } }
extension UInt16: MSALLogSafe { package var msalLogText: String { String(self) } }
extension UInt32: MSALLogSafe { package var msalLogText: String { String(self) } }
extension UInt64: MSALLogSafe { package var msalLogText: String { String(self) } }
extension Bool: MSALLogSafe { package var msalLogText: String { self ? "true" : "false" } }
extension Double: MSALLogSafe { package var msalLogText: String { "\(self)" } }

extension UUID: MSALLogSafe {
    /// Lower case, as sent in `client-request-id`.
    package var msalLogText: String { uuidString.lowercased() }
}

extension MSALError: MSALLogSafe {}
extension MSALInternalError: MSALLogSafe {}
extension MSALLogLevel: MSALLogSafe {}
extension MSALLogMaskingLevel: MSALLogSafe {}

extension MSALHTTPRequest.Method: MSALLogSafe {
    /// The method name, as `POST`.
    package var msalLogText: String { rawValue }
}
