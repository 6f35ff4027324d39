@_exported import MSALJOSE

/// Version of swift-msal, sent as `x-client-Ver`.
public let MSALVersion = "0.1.0"
