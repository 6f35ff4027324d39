/// The codes of MSAL's errors: the `code` of every error swift-msal reports in
/// ``MSALErrorDomain``, with MSAL for iOS's names and raw values.
///
/// As in MSAL for iOS, this is the enumeration of codes, not the error itself. Errors come as
/// ``MSALFailure`` values, which bridge to `NSError`, so code written for MSAL for iOS works
/// unchanged:
///
/// ```swift
/// let nsError = error as NSError
/// if nsError.domain == MSALErrorDomain, let code = MSALError(rawValue: nsError.code) {
///     switch code {
///     case .interactionRequired: showSignIn()
///     case .userCanceled: break
///     default: report(nsError.userInfo[MSALInternalErrorCodeKey])
///     }
/// }
/// ```
///
/// New Swift code can catch ``MSALFailure`` and read ``MSALFailure/code``, of this type.
///
/// Like MSAL for iOS, swift-msal reports only the codes an app can act on as themselves
/// (``workplaceJoinRequired``, ``interactionRequired``, ``serverDeclinedScopes``,
/// ``serverProtectionPoliciesRequired``, ``userCanceled`` and
/// ``serverInvalidRequestResetPasswordRequired``); every other failure, a server's
/// `server_error` among them, is ``internal`` with the precise cause in
/// `userInfo[MSALInternalErrorCodeKey]` (``MSALFailure/internalCode``).
public enum MSALError: Int, Sendable, CaseIterable, Hashable {
    /// Unrecoverable at run time; log it and inspect `userInfo[MSALInternalErrorCodeKey]`
    /// (``MSALFailure/internalCode``).
    case `internal` = -50000
    /// Workplace join is required: the device must be registered (enrolled) before the user can
    /// sign in. MSAL for iOS reports it from its broker; swift-msal reports it when Microsoft's
    /// Linux identity broker answers that the device is not registered (`DeviceNotRegistered`).
    case workplaceJoinRequired = -50001
    /// The user must act: call an interactive method with the same parameters (and the claims in
    /// `userInfo[MSALClaimsKey]`, if any).
    case interactionRequired = -50002
    /// Some scopes were not granted; see `userInfo[MSALDeclinedScopesKey]` and
    /// `userInfo[MSALGrantedScopesKey]`.
    case serverDeclinedScopes = -50003
    /// The resource needs app protection policies (the server's `protection_policy_required`).
    case serverProtectionPoliciesRequired = -50004
    /// The user canceled the sign-in, or the provider answered `access_denied`.
    case userCanceled = -50005
    /// The server's OAuth `server_error`. As in MSAL for iOS, never the top-level code of a reported
    /// error: such an error is ``internal`` with this value in `userInfo[MSALInternalErrorCodeKey]`
    /// (``MSALInternalError/serverError``).
    case serverError = -50006
    /// The device's registration must be migrated to a stronger one. MSAL for iOS reports it from
    /// its broker; swift-msal does not produce it on Linux.
    case insufficientDeviceStrength = -50007
    /// Device management enrollment finished; try the request again. MSAL for iOS reports it from
    /// its broker; swift-msal does not produce it on Linux.
    case mdmEnrollmentCompletedNeedsRetry = -50008
    /// The server answered `invalid_request` with AADSTS50142: the password must be changed (a
    /// conditional access policy). Sign the user in interactively.
    case serverInvalidRequestResetPasswordRequired = -50142
}

extension MSALError {
    /// The codes MSAL for iOS reports as themselves; every other failure is reported as
    /// ``internal`` with its own code as the internal code.
    package var isReportedAsItself: Bool {
        switch self {
        case .workplaceJoinRequired, .interactionRequired, .serverDeclinedScopes, .serverProtectionPoliciesRequired,
            .userCanceled, .serverInvalidRequestResetPasswordRequired:
            return true
        case .internal, .serverError, .insufficientDeviceStrength, .mdmEnrollmentCompletedNeedsRetry:
            return false
        }
    }
}
