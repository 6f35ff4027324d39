import Foundation

/// The members of an OpenID Provider Metadata document that swift-msal uses.
package struct OpenIDConfiguration: Sendable, Hashable {
    package var issuer: String
    package var authorizationEndpoint: String
    package var tokenEndpoint: String
    package var jwksURI: String
    package var deviceAuthorizationEndpoint: String?
    package var endSessionEndpoint: String?
    /// `authorization_response_iss_parameter_supported` (RFC 9207): the provider names itself in
    /// every authorization response with an `iss` parameter.
    package var authorizationResponseIssuerSupported = false
    /// `mtls_endpoint_aliases` `token_endpoint` (RFC 8705 §5): where a client that authenticates
    /// with mutual TLS sends its token requests.
    package var mtlsTokenEndpoint: String? = nil

    /// Parses a 200 body; a missing required member or a wrong type is ``MSALInternalError/invalidAuthorityMetadata``.
    package static func parse(_ body: [UInt8], correlationID: UUID?) throws(MSALFailure) -> OpenIDConfiguration {
        let reader = AuthorityDocument(name: "OpenID configuration", correlationID: correlationID)
        func fail(_ reason: String) -> MSALFailure { reader.fail(reason) }
        let root = try reader.root(body)
        func required(_ name: String) throws(MSALFailure) -> String {
            guard let value = root[name] else { throw fail("\(name) is missing") }
            guard let text = value.string, !text.isEmpty else { throw fail("\(name) is not a non-empty string") }
            return text
        }
        func optional(_ name: String) throws(MSALFailure) -> String? {
            guard let value = root[name], !value.isNull else { return nil }
            guard let text = value.string else { throw fail("\(name) is not a string") }
            return text.isEmpty ? nil : text
        }
        var issuerParameter = false
        if let value = root["authorization_response_iss_parameter_supported"], !value.isNull {
            guard let flag = value.bool else { throw fail("authorization_response_iss_parameter_supported is not a boolean") }
            issuerParameter = flag
        }
        // Optional and read leniently: a malformed alias is ignored, not a failed discovery.
        var mtlsTokenEndpoint: String?
        if let aliases = root["mtls_endpoint_aliases"], aliases.kind == .object, let text = aliases["token_endpoint"]?.string,
            !text.isEmpty
        {
            mtlsTokenEndpoint = text
        }
        return OpenIDConfiguration(
            issuer: try required("issuer"),
            authorizationEndpoint: try required("authorization_endpoint"),
            tokenEndpoint: try required("token_endpoint"),
            jwksURI: try required("jwks_uri"),
            deviceAuthorizationEndpoint: try optional("device_authorization_endpoint"),
            endSessionEndpoint: try optional("end_session_endpoint"),
            authorizationResponseIssuerSupported: issuerParameter, mtlsTokenEndpoint: mtlsTokenEndpoint)
    }
}
