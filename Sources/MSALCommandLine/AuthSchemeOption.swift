import ArgumentParser

/// `msal token --auth-scheme`: how the token is asked for and presented.
enum AuthSchemeOption: String, ExpressibleByArgument, CaseIterable {
    /// A bearer token, printed as it is.
    case bearer
    /// MSAL's proof of possession: a token bound to the application's key, printed as the
    /// `PoP <signed HTTP request>` header for one resource request.
    case pop
}
