/// The version of swift-msal, as `major.minor.patch`.
///
/// It is sent to the identity service in the `x-client-Ver` header of every request (with
/// `x-client-SKU: MSAL.Swift.Linux`), and it starts every log line after that SKU.
public let MSALVersion = "0.1.0"
