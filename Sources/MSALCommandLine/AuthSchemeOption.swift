import ArgumentParser

/// `msal token --auth-scheme`: how the token is asked for and presented.
enum AuthSchemeOption: String, ExpressibleByArgument, CaseIterable {
    /// A bearer token, printed as it is.
    case bearer
    /// MSAL's proof of possession: a token bound to the application's key, printed as the
    /// `PoP <signed HTTP request>` header for one resource request.
    case pop
    /// DPoP (RFC 9449): a token bound to the application's DPoP key, printed as the
    /// `DPoP <token>` header, with the proof for one resource request when one is named.
    case dpop
}
