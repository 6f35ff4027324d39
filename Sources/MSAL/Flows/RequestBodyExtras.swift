import MSALJOSE

/// The body fields a client credentials request adds to its grant's own: the FMI path
/// (`fmi_path`) and the caller's extra body parameters, checked, in the order they are sent, with
/// the extended cache key they give the token (``CacheExtendedKey``).
package struct RequestBodyExtras: Sendable {
    /// The fields, `fmi_path` first, then the extra parameters by name.
    package let fields: [(name: String, value: String)]
    /// The token's extended cache key; `nil` when no field contributes.
    package let extendedKey: String?
    /// The fields by name: what tells two requests' remembered hits apart (``AppTokenHitKey``).
    package let identity: [String: String]

    /// No extra field.
    package static let none = RequestBodyExtras(fields: [], extendedKey: nil, identity: [:])

    private init(fields: [(name: String, value: String)], extendedKey: String?, identity: [String: String]) {
        self.fields = fields
        self.extendedKey = extendedKey
        self.identity = identity
    }

    /// The most extra parameters a request may carry, and their sizes.
    package static let maximumExtraParameters = 32
    package static let maximumNameLength = 64
    package static let maximumValueLength = 4096
    /// The longest FMI path, in UTF-8 bytes.
    package static let maximumFMIPathLength = 256

    /// The fields of a request with `fmiPath` and `extraBodyParameters`, checked.
    ///
    /// - Throws: ``MSALInternalError/internalErrorInvalidParameter`` for an FMI path that
    ///   ``checkFMIPath(_:parameter:)`` refuses, or an extra parameter that names a field of the
    ///   protocol, has a name outside `[A-Za-z0-9_.-]` or over ``maximumNameLength`` bytes, a value
    ///   over ``maximumValueLength`` bytes, or is one of more than ``maximumExtraParameters``.
    package init(fmiPath: String?, extraBodyParameters: [String: String]?) throws(MSALFailure) {
        var fields: [(name: String, value: String)] = []
        if let fmiPath {
            try Self.checkFMIPath(fmiPath, parameter: "fmiPath")
            fields.append(("fmi_path", fmiPath))
        }
        let extra = extraBodyParameters ?? [:]
        guard extra.count <= Self.maximumExtraParameters else {
            throw Self.invalid("extraBodyParameters has \(extra.count) fields; at most \(Self.maximumExtraParameters) are allowed")
        }
        for name in extra.keys.sorted() {
            let value = extra[name]!
            let shown = UntrustedText.escaped(name, limit: Self.maximumNameLength)
            guard !name.isEmpty, name.utf8.count <= Self.maximumNameLength, name.utf8.allSatisfy(Self.isNameByte) else {
                throw Self.invalid("The extra body parameter name '\(shown)' is not 1 to 64 letters, digits, '_', '-' or '.'")
            }
            let folded = name.lowercased()
            guard !TokenRequests.protocolParameters.contains(folded), !CacheExtendedKey.standardFields.contains(folded),
                !Self.namedElsewhere.contains(folded)
            else {
                throw Self.invalid("The extra body parameter '\(shown)' is a field of the protocol, which the library sends itself")
            }
            guard value.utf8.count <= Self.maximumValueLength else {
                throw Self.invalid(
                    "The extra body parameter '\(shown)' is \(value.utf8.count) bytes, over the \(Self.maximumValueLength)-byte limit")
            }
            fields.append((name, value))
        }
        guard !fields.isEmpty else {
            self = .none
            return
        }
        self.fields = fields
        self.extendedKey = try CacheExtendedKey.make(fields)
        self.identity = Self.identity(fmiPath: fmiPath, extraBodyParameters: extraBodyParameters)
    }

    /// ``identity`` of a request with these values, without checking them: what a remembered hit
    /// is looked up by (only checked requests' answers are ever remembered).
    package static func identity(fmiPath: String?, extraBodyParameters: [String: String]?) -> [String: String] {
        var identity = extraBodyParameters ?? [:]
        if let fmiPath { identity["fmi_path"] = fmiPath }
        return identity
    }

    /// Fields the library names through parameters of their own (``MSALClientCredentialParameters/fmiPath``),
    /// or sends with other meanings (the authorization request's, DPoP's).
    private static let namedElsewhere: Set<String> = ["fmi_path", "response_mode", "x-client-sku", "x-client-ver"]

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."): true
        default: false
        }
    }

    /// Checks an FMI path: 1 to ``maximumFMIPathLength`` bytes (UTF-8) of segments separated by
    /// `/`, none empty, `.` or `..`, with no white space, control character or `\`.
    ///
    /// - Throws: ``MSALInternalError/internalErrorInvalidParameter`` naming `parameter` and what is
    ///   wrong; the path is quoted escaped and shortened.
    package static func checkFMIPath(_ path: String, parameter: String) throws(MSALFailure) {
        let shown = UntrustedText.escaped(path, limit: 64)
        guard !path.isEmpty else { throw invalid("\(parameter) is empty") }
        guard path.utf8.count <= maximumFMIPathLength else {
            throw invalid("\(parameter) is \(path.utf8.count) bytes, over the \(maximumFMIPathLength)-byte limit")
        }
        guard
            !path.unicodeScalars.contains(where: {
                $0 == "\\" || $0.properties.isWhitespace || $0.properties.generalCategory == .control
                    || $0.properties.generalCategory == .format
            })
        else {
            throw invalid("\(parameter) '\(shown)' has white space, a control character or '\\'")
        }
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) {
            guard !segment.isEmpty, segment != ".", segment != ".." else {
                throw invalid("\(parameter) '\(shown)' has an empty, '.' or '..' segment")
            }
        }
    }

    private static func invalid(_ message: String) -> MSALFailure {
        MSALFailure(.internal, internalCode: .internalErrorInvalidParameter, message: message)
    }
}
