import Foundation
import MSALJOSE

/// An error from swift-msal: what every method throws and every completion block receives.
///
/// It bridges to `NSError` in ``MSALErrorDomain`` with MSAL for iOS's `code` and `userInfo`, so
/// code written for MSAL for iOS handles it unchanged; new Swift code can catch it by type:
///
/// ```swift
/// catch let error as MSALFailure where error.code == .interactionRequired { … }
///
/// let nsError = error as NSError
/// if nsError.domain == MSALErrorDomain, nsError.code == MSALError.interactionRequired.rawValue { … }
/// ```
///
/// ``code`` is one of ``MSALError``'s cases, reported as MSAL for iOS reports it: only the codes an
/// app can act on stand as themselves; everything else is ``MSALError/internal`` with the precise
/// cause in ``internalCode``.
public struct MSALFailure: Error, Sendable, CustomNSError, LocalizedError, CustomStringConvertible {
    /// The type of ``code``: ``MSALError``, MSAL for iOS's enumeration of error codes.
    public typealias Code = MSALError

    /// What to do about the error.
    public var code: Code
    /// The precise cause.
    public var internalCode: MSALInternalError?
    /// A description for logs; never contains tokens.
    public var message: String
    /// The OAuth `error` from the server.
    public var oauthError: String?
    /// The OAuth `suberror` from the server.
    public var oauthSubError: String?
    /// The claims challenge from the server, to pass back on the interactive request.
    public var claims: String?
    /// AADSTS error codes from the server.
    public var stsErrorCodes: [Int]?
    /// The correlation id of the failed request.
    public var correlationID: UUID?
    /// The HTTP status of the failed response.
    public var httpStatusCode: Int?
    /// The HTTP headers of the failed response.
    public var httpHeaders: [String: String]?
    /// Scopes the server declined.
    public var declinedScopes: [String]?
    /// Scopes the server granted when it declined others.
    public var grantedScopes: [String]?
    /// The home account id the error concerns.
    public var homeAccountID: String?
    /// The displayable user id (the username) of the account the error concerns, when known
    /// (`userInfo[MSALDisplayableUserIdKey]`).
    public var displayableUserId: String?
    /// The description of the server's OAuth `suberror`, when it sent one
    /// (`userInfo[MSALOAuthSubErrorDescriptionKey]`).
    public var oauthSubErrorDescription: String?
    /// The authorization URL of an interactive request that could not be shown (no browser could be
    /// launched): tell the user to open it.
    public var authorizationURL: URL?
    /// Whether the error was answered by the throttling cache without calling the server.
    public var isThrottlingCacheHit: Bool
    /// The result received with a ``MSALError/serverDeclinedScopes`` error: the token for the granted scopes.
    public var invalidResult: MSALResult?
    /// The error that caused this one, when there is one.
    public var underlyingError: (any Error & Sendable)?

    /// Creates an error.
    public init(
        _ code: Code,
        internalCode: MSALInternalError? = nil,
        message: String,
        oauthError: String? = nil,
        oauthSubError: String? = nil,
        correlationID: UUID? = nil,
        underlyingError: (any Error & Sendable)? = nil
    ) {
        // MSAL for iOS reports only the codes an app can act on as themselves; any other code
        // (`server_error` among them) is reported as `internal`, with that code as the internal one.
        if code.isReportedAsItself || code == .internal {
            self.code = code
            self.internalCode = internalCode
        } else {
            self.code = .internal
            self.internalCode = internalCode ?? MSALInternalError(rawValue: code.rawValue) ?? .internalErrorUnexpected
        }
        // Messages and OAuth fields quote text a provider, a token or a redirect chose: one rule
        // (UntrustedText) escapes controls, bidirectional and other format characters where the
        // text enters the error, so no terminal or log that shows it can be steered by it.
        self.message = UntrustedText.escaped(message, limit: 8192)
        self.oauthError = oauthError.map { UntrustedText.escaped($0, limit: 256) }
        self.oauthSubError = oauthSubError.map { UntrustedText.escaped($0, limit: 256) }
        self.correlationID = correlationID
        self.underlyingError = underlyingError
        self.isThrottlingCacheHit = false
    }

    /// `MSALErrorDomain`.
    public static var errorDomain: String { MSALErrorDomain }

    /// The ``code``'s raw value.
    public var errorCode: Int { code.rawValue }

    /// The MSAL `userInfo` dictionary (keys such as ``MSALInternalErrorCodeKey`` and ``MSALOAuthErrorKey``).
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [
            MSALErrorDescriptionKey: message,
            NSLocalizedDescriptionKey: message,
        ]
        info[MSALInternalErrorCodeKey] = internalCode?.rawValue
        info[MSALOAuthErrorKey] = oauthError
        info[MSALOAuthSubErrorKey] = oauthSubError
        info[MSALClaimsKey] = claims
        info[MSALSTSErrorCodesKey] = stsErrorCodes
        info[MSALCorrelationIDKey] = correlationID?.uuidString
        // A string, as MSAL for iOS puts it there ("503").
        info[MSALHTTPResponseCodeKey] = httpStatusCode.map { String($0) }
        info[MSALDisplayableUserIdKey] = displayableUserId
        info[MSALOAuthSubErrorDescriptionKey] = oauthSubErrorDescription
        info[MSALHTTPHeadersKey] = httpHeaders
        info[MSALDeclinedScopesKey] = declinedScopes
        info[MSALGrantedScopesKey] = grantedScopes
        info[MSALHomeAccountIdKey] = homeAccountID
        info[MSALInvalidResultKey] = invalidResult
        info[MSALAuthorizationURLKey] = authorizationURL
        if isThrottlingCacheHit {
            info[MSALThrottlingCacheHitKey] = true
        }
        if let underlyingError {
            info[NSUnderlyingErrorKey] = underlyingError
        }
        return info
    }

    /// The ``message``.
    public var errorDescription: String? { message }

    /// Code, internal code, OAuth error and message on one line.
    public var description: String {
        var parts = ["MSALError \(code) (\(code.rawValue))"]
        if let internalCode {
            parts.append("internal \(internalCode) (\(internalCode.rawValue))")
        }
        if let oauthError {
            parts.append("oauth \(oauthError)\(oauthSubError.map { "/\($0)" } ?? "")")
        }
        if let correlationID {
            parts.append("correlation \(correlationID.uuidString)")
        }
        return parts.joined(separator: ", ") + ": " + message
    }
}
