import Foundation
import MSALJOSE

/// An error from swift-msal.
///
/// Handle it by ``code``; the precise cause is ``internalCode``. Both idioms of
/// MSAL for iOS work:
///
/// ```swift
/// catch let error as MSALError where error.code == .interactionRequired { … }
///
/// let nsError = error as NSError
/// if nsError.domain == MSALErrorDomain, nsError.code == MSALError.interactionRequired.rawValue { … }
/// ```
public struct MSALError: Error, Sendable, CustomNSError, LocalizedError, CustomStringConvertible {
    /// What the app should do about the error. Raw values are MSAL for iOS's.
    public enum Code: Int, Sendable, CaseIterable, Hashable {
        /// Unrecoverable at run time; log it and inspect ``MSALError/internalCode``.
        case `internal` = -50000
        /// Workplace join is required.
        case workplaceJoinRequired = -50001
        /// The user must act: call an interactive method with the same parameters.
        case interactionRequired = -50002
        /// Some scopes were not granted; see ``MSALError/declinedScopes``.
        case serverDeclinedScopes = -50003
        /// The resource needs app protection policies.
        case serverProtectionPoliciesRequired = -50004
        /// The user canceled the sign-in.
        case userCanceled = -50005
        /// The server returned `server_error` or failed.
        case serverError = -50006
    }

    /// `MSALError.internal`, as in MSAL for iOS (`MSALError.internal.rawValue`).
    public static let `internal` = Code.internal
    /// `MSALError.workplaceJoinRequired`.
    public static let workplaceJoinRequired = Code.workplaceJoinRequired
    /// `MSALError.interactionRequired`.
    public static let interactionRequired = Code.interactionRequired
    /// `MSALError.serverDeclinedScopes`.
    public static let serverDeclinedScopes = Code.serverDeclinedScopes
    /// `MSALError.serverProtectionPoliciesRequired`.
    public static let serverProtectionPoliciesRequired = Code.serverProtectionPoliciesRequired
    /// `MSALError.userCanceled`.
    public static let userCanceled = Code.userCanceled
    /// `MSALError.serverError`.
    public static let serverError = Code.serverError

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
    /// The authorization URL of an interactive request that could not be shown (no browser could be
    /// launched): tell the user to open it.
    public var authorizationURL: URL?
    /// Whether the error was answered by the throttling cache without calling the server.
    public var isThrottlingCacheHit: Bool
    /// The result received with a ``Code/serverDeclinedScopes`` error: the token for the granted scopes.
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
        self.code = code
        self.internalCode = internalCode
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
        info[MSALHTTPResponseCodeKey] = httpStatusCode
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
