/// The completion block of the account calls that list accounts
/// (``MSALPublicClientApplication/accountsFromDevice(for:completionBlock:)``): the accounts or an
/// error, never both.
public typealias MSALAccountsCompletionBlock = @Sendable ([MSALAccount]?, (any Error)?) -> Void

/// The completion block of ``MSALPublicClientApplication/getCurrentAccount(with:completionBlock:)``:
/// the current account and the previous one, or an error.
public typealias MSALCurrentAccountCompletionBlock = @Sendable (MSALAccount?, MSALAccount?, (any Error)?) -> Void

/// The completion block of
/// ``MSALPublicClientApplication/signout(with:signoutParameters:completionBlock:)``: `true`, or
/// `false` with the error.
public typealias MSALSignoutCompletionBlock = @Sendable (Bool, (any Error)?) -> Void

/// The completion block of ``MSALPublicClientApplication/getDeviceInformation(with:completionBlock:)``:
/// the device's information or an error, never both.
public typealias MSALDeviceInformationCompletionBlock = @Sendable (MSALDeviceInformation?, (any Error)?) -> Void
