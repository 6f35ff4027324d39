/// The HTTP method of the resource request a proof-of-possession token is presented for
/// (``MSALAuthenticationSchemePop``), as MSAL for iOS names them.
public enum MSALHttpMethod: UInt, Sendable, Hashable, CaseIterable {
    /// `GET`
    case GET = 0
    /// `HEAD`
    case HEAD = 1
    /// `POST`
    case POST = 2
    /// `PUT`
    case PUT = 3
    /// `DELETE`
    case DELETE = 4
    /// `CONNECT`
    case CONNECT = 5
    /// `OPTIONS`
    case OPTIONS = 6
    /// `TRACE`
    case TRACE = 7
    /// `PATCH`
    case PATCH = 8
}

/// The method's name as sent on the wire (`GET`, `POST`, …), as MSAL for iOS's function of the same name.
///
/// - Parameter httpMethod: The method.
/// - Returns: Its name, in capitals.
public func MSALParameterStringForHttpMethod(_ httpMethod: MSALHttpMethod) -> String {
    switch httpMethod {
    case .GET: "GET"
    case .HEAD: "HEAD"
    case .POST: "POST"
    case .PUT: "PUT"
    case .DELETE: "DELETE"
    case .CONNECT: "CONNECT"
    case .OPTIONS: "OPTIONS"
    case .TRACE: "TRACE"
    case .PATCH: "PATCH"
    }
}
