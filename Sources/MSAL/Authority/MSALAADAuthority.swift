import Foundation

/// A Microsoft Entra ID authority: `https://<cloud host>/<tenant>`.
public final class MSALAADAuthority: MSALAuthority, @unchecked Sendable {
    /// Which accounts the authority signs in, from its tenant.
    public let audienceType: MSALAudienceType
    /// The tenant id or domain for ``MSALAudienceType/azureADMyOrgOnlyAudience``, as written; otherwise `nil`.
    public let rawTenant: String?

    package override init(components: AuthorityComponents, options: MSALAuthorityOptions) {
        switch components.tenant {
        case "common": (audienceType, rawTenant) = (.azureADAndPersonalMicrosoftAccountAudience, nil)
        case "organizations": (audienceType, rawTenant) = (.azureADMultipleOrgsAudience, nil)
        case "consumers": (audienceType, rawTenant) = (.personalMicrosoftAccountAudience, nil)
        default: (audienceType, rawTenant) = (.azureADMyOrgOnlyAudience, components.rawTenant)
        }
        super.init(components: components, options: options)
    }

    /// Creates a Microsoft Entra authority from `https://<host>/<tenant>`.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/invalidAuthority``.
    public convenience init(url: URL) throws {
        try self.init(url: url, options: [])
    }

    /// Creates a Microsoft Entra authority with opt-ins.
    public convenience init(url: URL, options: MSALAuthorityOptions) throws {
        self.init(components: try AuthorityComponents.parse(url.absoluteString, kind: .aad, options: options), options: options)
    }

    /// Creates an authority for `url`'s host with another tenant, as MSAL for iOS's `init(url:rawTenant:)`.
    public convenience init(url: URL, rawTenant: String?) throws {
        let base = try AuthorityComponents.parse(url.absoluteString, kind: .aad, options: [])
        guard let rawTenant else {
            self.init(components: base, options: [])
            return
        }
        self.init(components: try AuthorityComponents.parse(base.origin + "/" + rawTenant, kind: .aad, options: []), options: [])
    }

    /// Creates an authority from a cloud and an audience, as MSAL for iOS's
    /// `init(cloudInstance:audienceType:rawTenant:)`. `rawTenant` is required for
    /// ``MSALAudienceType/azureADMyOrgOnlyAudience`` and must be `nil` otherwise.
    public convenience init(cloudInstance: MSALAzureCloudInstance, audienceType: MSALAudienceType, rawTenant: String?) throws {
        try self.init(environment: cloudInstance.host, audienceType: audienceType, rawTenant: rawTenant)
    }

    /// Creates an authority from the sign-in host of a cloud (such as `login.microsoftonline.us`)
    /// and an audience, as MSAL for iOS's `init(environment:audienceType:rawTenant:)`.
    /// `rawTenant` is required for ``MSALAudienceType/azureADMyOrgOnlyAudience`` and must be
    /// `nil` otherwise.
    ///
    /// - Throws: ``MSALFailure`` with ``MSALInternalError/internalErrorInvalidParameter`` for an
    ///   empty environment or a tenant that does not fit the audience, and
    ///   ``MSALInternalError/invalidAuthority`` for a host that is not one.
    public convenience init(environment: String, audienceType: MSALAudienceType, rawTenant: String?) throws {
        let host = environment.trimmingCharacters(in: .whitespaces)
        guard !host.isEmpty, !host.contains("/") else {
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "The environment must be a host name, such as login.microsoftonline.com")
        }
        let tenant: String
        switch (audienceType.tenantAlias, rawTenant) {
        case (let alias?, nil): tenant = alias
        case (nil, let raw?) where !raw.isEmpty: tenant = raw
        case (nil, _):
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter,
                message: "azureADMyOrgOnlyAudience needs a rawTenant (a tenant id or domain).")
        case (_?, _?):
            throw MSALFailure(
                .internal, internalCode: .internalErrorInvalidParameter, message: "rawTenant is only for azureADMyOrgOnlyAudience.")
        }
        let text = "https://" + host + "/" + tenant
        self.init(components: try AuthorityComponents.parse(text, kind: .aad, options: []), options: [])
    }
}

extension MSALAADAuthority {
    /// `https://login.microsoftonline.com/common`, the default authority of an application.
    package static var defaultCommon: MSALAADAuthority {
        // A constant, valid Entra authority: parsing it cannot fail (a unit test checks it).
        do {
            return try MSALAADAuthority(url: MSALPublicClientApplicationConfig.defaultAuthorityURL)
        } catch {
            preconditionFailure("the default authority must parse: \(error)")
        }
    }
}
