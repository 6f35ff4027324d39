import ArgumentParser
import Foundation
import MSAL
import MSALJOSE
import MSALJSON

/// Writes results and errors in the chosen format.
enum CommandOutput {
    /// Writes text output for a terminal: whatever a provider or token put in it (a username, a
    /// name, an error description) passes the rule for untrusted text (``UntrustedText``: controls,
    /// bidirectional and other format characters escaped; line breaks kept).
    static func write(_ text: String, toStandardError: Bool = false) {
        emit(UntrustedText.escaped(text, limit: Int.max, keepingLineBreaks: true), toStandardError: toStandardError)
    }

    private static func emit(_ text: String, toStandardError: Bool) {
        let data = Data((text.hasSuffix("\n") ? text : text + "\n").utf8)
        (toStandardError ? FileHandle.standardError : FileHandle.standardOutput).write(data)
    }

    /// Writes `text` to standard error (no newline), for progress indicators; escaped as ``write(_:toStandardError:)``.
    static func writeRaw(_ text: String) {
        FileHandle.standardError.write(Data(UntrustedText.escaped(text, limit: Int.max, keepingLineBreaks: true).utf8))
    }

    /// Writes JSON output exactly: its writer escapes what JSON requires, and consumers parse it.
    static func writeJSON(_ value: JSON) {
        emit(JSONWriter.string(value, style: .indented), toStandardError: false)
    }

    /// Writes `value` as one line of JSON (compact), exactly as ``writeJSON(_:)`` does.
    static func writeJSONLine(_ value: JSON, toStandardError: Bool = false) {
        emit(JSONWriter.string(value, style: .compact), toStandardError: toStandardError)
    }

    /// The `error` object of JSON output.
    static func errorJSON(_ error: MSALFailure) -> JSON {
        var members: [JSONMember] = [
            JSONMember(name: "domain", value: .string(MSALErrorDomain)),
            JSONMember(name: "code", value: .integer(error.code.rawValue)),
            JSONMember(name: "code_name", value: .string(String(describing: error.code))),
        ]
        if let internalCode = error.internalCode {
            members.append(JSONMember(name: "internal_code", value: .integer(internalCode.rawValue)))
            members.append(JSONMember(name: "internal_name", value: .string(String(describing: internalCode))))
        } else {
            members.append(JSONMember(name: "internal_code", value: .null))
        }
        members.append(JSONMember(name: "oauth_error", value: error.oauthError.map { .string($0) } ?? .null))
        if let subError = error.oauthSubError {
            members.append(JSONMember(name: "oauth_suberror", value: .string(subError)))
        }
        members.append(JSONMember(name: "correlation_id", value: error.correlationID.map { .string($0.uuidString.lowercased()) } ?? .null))
        if let jose = error.underlyingError as? JOSEError {
            members.append(JSONMember(name: "jose_code", value: .string(jose.code.rawValue)))
            members.append(JSONMember(name: "message", value: .string(jose.message)))
        } else {
            members.append(JSONMember(name: "message", value: .string(error.message)))
        }
        return .object(members)
    }

    /// Reports a failure and returns the exit code to use (1).
    static func fail(_ error: Error, format: OutputFormat, extra: [JSONMember] = []) -> ExitCode {
        let msalError: MSALFailure
        switch error {
        case let error as MSALFailure: msalError = error
        case let error as JOSEError: msalError = MSALFailure(error)
        default: msalError = MSALFailure(.internal, internalCode: .internalErrorUnexpected, message: String(describing: error))
        }
        switch format {
        case .json:
            writeJSON(.object(extra + [JSONMember(name: "error", value: errorJSON(msalError))]))
        case .text:
            let detail = (msalError.underlyingError as? JOSEError)?.message ?? msalError.message
            let name = msalError.internalCode.map { "\($0) (\($0.rawValue))" } ?? "\(msalError.code)"
            write("error: \(detail) [\(name)]", toStandardError: true)
        }
        return ExitCode(1)
    }

    static func epochDescription(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite, abs(seconds) < 1e12 else { return "-" }
        return "\(Int64(seconds)) (\(utcTimestamp(seconds)))"
    }

    /// `yyyy-MM-ddTHH:mm:ssZ` in UTC (what `ISO8601DateFormatter` prints by default), from
    /// `gmtime_r`: a formatter loads ICU's calendar data, a sixth of a one-account `msal token`
    /// process's memory.
    static func utcTimestamp(_ seconds: Double) -> String {
        var time = time_t(seconds.rounded(.down))
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "-" }
        func digits(_ value: Int32, _ width: Int) -> String {
            let text = String(abs(value))
            return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(digits(parts.tm_year + 1900, 4))-\(digits(parts.tm_mon + 1, 2))-\(digits(parts.tm_mday, 2))T"
            + "\(digits(parts.tm_hour, 2)):\(digits(parts.tm_min, 2)):\(digits(parts.tm_sec, 2))Z"
    }
}
