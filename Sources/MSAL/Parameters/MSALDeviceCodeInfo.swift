import Foundation

/// What the user needs to finish a device code sign-in on another device (RFC 8628 §3.2).
public struct MSALDeviceCodeInfo: Sendable, Hashable {
    /// The code the user types at ``verificationURI``.
    public let userCode: String
    /// Where the user signs in, such as `https://microsoft.com/devicelogin`.
    public let verificationURI: URL
    /// The service's instructions for the user, ready to print.
    public let message: String
    /// When the code expires.
    public let expiresOn: Date
    /// Seconds between polls, as the service asked.
    public let interval: Int

    /// Creates device code information.
    public init(userCode: String, verificationURI: URL, message: String, expiresOn: Date, interval: Int) {
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.message = message
        self.expiresOn = expiresOn
        self.interval = interval
    }
}
