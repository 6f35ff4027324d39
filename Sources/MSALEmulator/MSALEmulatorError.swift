/// A failure of an ``MSALEmulator`` call (its configuration, start-up or an admin call); never
/// used for HTTP answers, which are OAuth errors.
public struct MSALEmulatorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Hashable {
        /// The configuration is inconsistent (see the message).
        case invalidConfiguration
        /// ``MSALEmulator/start(port:)`` was called on a running emulator.
        case alreadyRunning
        /// The port could not be bound.
        case bindFailed
        /// The signing key could not be created.
        case keyGenerationFailed
        /// No user has that username.
        case unknownUser
        /// No device code has that user code, or it is no longer waiting for approval.
        case unknownUserCode
        /// The user has no profile in the device code's tenant.
        case userNotInTenant
        /// ``MSALEmulator/SignInDriver`` could not complete a sign-in page.
        case signInFailed
        /// The broker double could not start: no libdbus, no bus, or its name is taken.
        case brokerUnavailable
    }

    /// What went wrong.
    public var code: Code
    /// A sentence for people.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}
