import Foundation
import MSALJOSE
import MSALSupport

extension MSALEmulator {
    /// What the emulator hosts: tenants, users, registered clients, token lifetimes and sign-in behaviour.
    ///
    /// ``sample`` is a ready-made directory with two tenants, three users (one of them a guest in the
    /// other tenant) and three clients (two in the family of client ids).
    public struct Configuration: Sendable {
        /// The hosted tenants.
        public var tenants: [Tenant]
        /// The users.
        public var users: [User]
        /// The registered public clients.
        public var clients: [Client]
        /// Token, code and device-code lifetimes (changeable later with ``MSALEmulator/setLifetimes(_:)``).
        public var lifetimes: Lifetimes
        /// The username signed in without a choice: the sign-in page submits itself for this user
        /// (with a script, and a button for browsers without one), whatever the request's `prompt`
        /// (except `none`, which never shows a page). `nil`: the page lists the users.
        public var autoSignIn: String?
        /// Whether a `login_hint` naming a user of the tenant signs that user in the same way as
        /// ``autoSignIn``; not under `prompt=select_account`, which always shows the choice.
        public var honorsLoginHint: Bool
        /// The audience the protected resource (`/resource/me`) accepts in access tokens. Scopes
        /// without a resource (`User.Read`) are Microsoft Graph's, as on Entra, so the default is
        /// `https://graph.microsoft.com`.
        public var resourceAudience: String
        /// Caps on what one HTTP request may carry.
        public var limits: Limits
        /// The origin the emulator names itself by in issuers, endpoints, instance discovery and
        /// the audience it expects of client assertions, such as `https://login.microsoftonline.com`,
        /// while it listens on `http://127.0.0.1:<port>` (``MSALEmulator/baseURL``). `nil` (the
        /// default): the listening origin. With one, a client reaches the emulator through an HTTP
        /// client that sends requests for this origin to ``MSALEmulator/baseURL`` instead — how a
        /// library that insists on `https` authorities (MSAL for Python) is pointed at it.
        public var advertisedOrigin: String?
        /// The managed identities served at the managed-identity endpoints (IMDS, App Service,
        /// Azure Arc). Default none; ``sample`` has one system-assigned and one user-assigned identity.
        public var managedIdentities: [ManagedIdentity]
        /// The secret the App Service endpoint (`/msi/token`) expects in the `X-IDENTITY-HEADER`
        /// header, as App Service hands it to an app in `IDENTITY_HEADER`. Visible ASCII, at most
        /// 256 bytes. Default: a random value; ``sample``: ``sampleAppServiceIdentityHeader``.
        public var appServiceIdentityHeader: String
        /// An absolute path of an existing directory where the Azure Arc endpoint writes the key
        /// files of its challenges (`<directory>/<random hex>.key`, mode 0600). `nil` (the default):
        /// the Arc endpoint answers 500.
        public var arcTokenDirectory: String?
        /// The request header in which a TLS terminator in front of the emulator forwards the
        /// client certificate of each connection (standard base64 of its DER), as reverse proxies
        /// forward it to the service behind them. With one, a confidential client may authenticate
        /// with a registered certificate in TLS (RFC 8705, no secret or assertion in the form), and
        /// gets tokens bound to it (`cnf` `x5t#S256`; `token_type` `mtls_pop` when it asks for
        /// Microsoft Entra's mTLS proof of possession). The front must remove the header from what
        /// clients send: the emulator believes it. `nil` (the default): no certificate is ever seen.
        public var clientCertificateHeader: String?

        /// Caps on requests; larger ones are answered 413, 414 or 431 and the connection closed.
        public struct Limits: Sendable, Hashable {
            /// Largest request body. Default 64 KiB.
            public var maximumBodyBytes: Int
            /// Longest request target (path and query). Default 16 KiB.
            public var maximumURIBytes: Int
            /// Largest total size of the header names and values. Default 32 KiB.
            public var maximumHeaderBytes: Int
            /// Most connections open at once; more are closed on accept. Default 256.
            public var maximumConnections: Int
            /// Seconds a connection may stay silent before it is closed. Default 60.
            public var idleTimeout: Int

            /// Creates limits.
            public init(
                maximumBodyBytes: Int = 64 * 1024, maximumURIBytes: Int = 16 * 1024, maximumHeaderBytes: Int = 32 * 1024,
                maximumConnections: Int = 256, idleTimeout: Int = 60
            ) {
                self.maximumBodyBytes = max(1024, maximumBodyBytes)
                self.maximumURIBytes = max(256, maximumURIBytes)
                self.maximumHeaderBytes = max(1024, maximumHeaderBytes)
                self.maximumConnections = max(1, maximumConnections)
                self.idleTimeout = max(1, idleTimeout)
            }
        }

        /// Creates a configuration.
        public init(
            tenants: [Tenant], users: [User], clients: [Client], lifetimes: Lifetimes = Lifetimes(),
            autoSignIn: String? = nil, honorsLoginHint: Bool = false, resourceAudience: String = MSALEmulator.graphResource,
            limits: Limits = Limits(), managedIdentities: [ManagedIdentity] = [], appServiceIdentityHeader: String? = nil,
            arcTokenDirectory: String? = nil
        ) {
            self.tenants = tenants
            self.users = users
            self.clients = clients
            self.lifetimes = lifetimes
            self.autoSignIn = autoSignIn
            self.honorsLoginHint = honorsLoginHint
            self.resourceAudience = resourceAudience
            self.limits = limits
            self.managedIdentities = managedIdentities
            self.appServiceIdentityHeader = appServiceIdentityHeader ?? Self.randomIdentityHeader()
            self.arcTokenDirectory = arcTokenDirectory
        }

        /// 32 random hexadecimal digits.
        static func randomIdentityHeader() -> String {
            let bytes = (try? SecureRandom.bytes(count: 16)) ?? Array(UUID().uuidString.utf8.prefix(16))
            return String(decoding: bytes.flatMap { [Hex.digit($0 >> 4), Hex.digit($0 & 0x0F)] }, as: UTF8.self)
        }
    }
}

extension MSALEmulator.Configuration {
    /// The tenant id of the sample's Contoso tenant (`contoso.example`).
    public static let sampleContosoTenantID = "0b7e7b3c-6f3a-4c47-9a53-2f6a3d0c5e11"
    /// The tenant id of the sample's Fabrikam tenant (`fabrikam.example`).
    public static let sampleFabrikamTenantID = "5d1c2a8e-94b0-4e6f-8c21-7a9e3b4f6d22"
    /// The client id of the sample's main application (a family client, redirect `http://localhost`).
    public static let sampleClientID = "9f3a5c1e-2b4d-4e6f-8a7c-1d2e3f4a5b6c"
    /// The client id of the sample's second family application.
    public static let sampleFamilyClientID = "4c6e8a0b-1d3f-4a5c-9e7b-2f4d6a8c0e1b"
    /// The client id of the sample's application outside the family.
    public static let sampleStandaloneClientID = "7e9b1d3f-5a7c-4e9b-8d1f-3a5c7e9b1d3f"
    /// The client id of the sample's system-assigned managed identity (Contoso).
    public static let sampleSystemAssignedIdentityClientID = "6b8f2d4a-3c5e-4f7a-9b1d-2e4f6a8c0d13"
    /// The object id of the sample's system-assigned managed identity.
    public static let sampleSystemAssignedIdentityObjectID = "e5f7a9c1-3b5d-4e7f-8a9b-1c3d5e7f9a24"
    /// The resource id of the sample's system-assigned managed identity: the virtual machine it belongs to.
    public static let sampleSystemAssignedIdentityResourceID =
        "/subscriptions/1f3e5a7c-9b2d-4c6e-8f0a-2b4d6f8a0c35/resourcegroups/contoso-rg/providers/Microsoft.Compute/virtualMachines/contoso-vm"
    /// The client id of the sample's user-assigned managed identity (Contoso).
    public static let sampleUserAssignedIdentityClientID = "2d4f6a8c-0e1b-4c3d-8e5f-7a9b1c3d5e46"
    /// The object id of the sample's user-assigned managed identity.
    public static let sampleUserAssignedIdentityObjectID = "8a0c2e4f-6b8d-4f1a-9c3e-5d7f9b1d3f57"
    /// The resource id of the sample's user-assigned managed identity.
    public static let sampleUserAssignedIdentityResourceID =
        "/subscriptions/1f3e5a7c-9b2d-4c6e-8f0a-2b4d6f8a0c35/resourcegroups/contoso-rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/contoso-worker"
    /// The sample's ``appServiceIdentityHeader``: the `X-IDENTITY-HEADER` the App Service endpoint expects.
    public static let sampleAppServiceIdentityHeader = "c7d1e94a0b3f58e26a4d9c17f0b8e35d"

    /// Two tenants, three users and three clients:
    ///
    /// | tenant | id | users |
    /// |---|---|---|
    /// | Contoso (`contoso.example`) | ``sampleContosoTenantID`` | Adele Vance `adele@contoso.example`, Ben Walters `ben@contoso.example` |
    /// | Fabrikam (`fabrikam.example`) | ``sampleFabrikamTenantID`` | Grace Taylor `grace@fabrikam.example`, who is also a guest in Contoso |
    ///
    /// Clients: ``sampleClientID`` ("MSAL Emulator Sample", family), ``sampleFamilyClientID``
    /// ("MSAL Emulator Sample Companion", family) and ``sampleStandaloneClientID`` ("MSAL Emulator
    /// Standalone"), each with the redirect URIs `http://localhost` and `http://127.0.0.1`.
    ///
    /// Managed identities, both in Contoso: a system-assigned one
    /// (``sampleSystemAssignedIdentityClientID``, ``sampleSystemAssignedIdentityObjectID``,
    /// ``sampleSystemAssignedIdentityResourceID``) and a user-assigned one
    /// (``sampleUserAssignedIdentityClientID``, ``sampleUserAssignedIdentityObjectID``,
    /// ``sampleUserAssignedIdentityResourceID``); the App Service header
    /// ``sampleAppServiceIdentityHeader``; no Arc token directory.
    public static var sample: MSALEmulator.Configuration {
        let contoso = MSALEmulator.Tenant(id: sampleContosoTenantID, domain: "contoso.example", displayName: "Contoso")
        let fabrikam = MSALEmulator.Tenant(id: sampleFabrikamTenantID, domain: "fabrikam.example", displayName: "Fabrikam")
        let redirects = ["http://localhost", "http://127.0.0.1"]
        return MSALEmulator.Configuration(
            tenants: [contoso, fabrikam],
            users: [
                MSALEmulator.User(
                    objectID: "a1d0e5b2-7c3f-4e8a-9b6d-0f1e2d3c4b5a", tenantID: contoso.id, username: "adele@contoso.example",
                    name: "Adele Vance"),
                MSALEmulator.User(
                    objectID: "b2e1f6c3-8d4a-4f9b-8c7e-1a2f3e4d5c6b", tenantID: contoso.id, username: "ben@contoso.example",
                    name: "Ben Walters"),
                MSALEmulator.User(
                    objectID: "c3f2a7d4-9e5b-4a0c-9d8f-2b3a4f5e6d7c", tenantID: fabrikam.id, username: "grace@fabrikam.example",
                    name: "Grace Taylor",
                    guestProfiles: [.init(tenantID: contoso.id, objectID: "d4a3b8e5-0f6c-4b1d-8e9a-3c4b5a6f7e8d")]),
            ],
            clients: [
                MSALEmulator.Client(
                    clientID: sampleClientID, displayName: "MSAL Emulator Sample", redirectURIs: redirects, isFamilyMember: true),
                MSALEmulator.Client(
                    clientID: sampleFamilyClientID, displayName: "MSAL Emulator Sample Companion", redirectURIs: redirects,
                    isFamilyMember: true),
                MSALEmulator.Client(clientID: sampleStandaloneClientID, displayName: "MSAL Emulator Standalone", redirectURIs: redirects),
            ],
            managedIdentities: [
                MSALEmulator.ManagedIdentity(
                    clientID: sampleSystemAssignedIdentityClientID, objectID: sampleSystemAssignedIdentityObjectID,
                    resourceID: sampleSystemAssignedIdentityResourceID, tenantID: contoso.id, isSystemAssigned: true),
                MSALEmulator.ManagedIdentity(
                    clientID: sampleUserAssignedIdentityClientID, objectID: sampleUserAssignedIdentityObjectID,
                    resourceID: sampleUserAssignedIdentityResourceID, tenantID: contoso.id),
            ],
            appServiceIdentityHeader: sampleAppServiceIdentityHeader)
    }

    /// The tenant with id or domain `name` (case-insensitive).
    public func tenant(named name: String) -> MSALEmulator.Tenant? {
        let folded = name.lowercased()
        return tenants.first { $0.id == folded || $0.domain == folded }
    }

    /// The user with `username` (case-insensitive).
    public func user(named username: String) -> MSALEmulator.User? {
        let folded = username.lowercased()
        return users.first { $0.username.lowercased() == folded }
    }

    /// The client with `clientID`.
    public func client(withID clientID: String) -> MSALEmulator.Client? {
        clients.first { $0.clientID == clientID }
    }

    /// Checks that ids are well formed and unique and that every reference resolves.
    ///
    /// - Throws: ``MSALEmulatorError/Code/invalidConfiguration`` naming the first problem.
    public func validate() throws(MSALEmulatorError) {
        func fail(_ message: String) -> MSALEmulatorError { MSALEmulatorError(.invalidConfiguration, message) }
        guard !tenants.isEmpty else { throw fail("no tenants") }
        var names = Set<String>()
        for tenant in tenants {
            guard EmulatorText.isGUID(tenant.id) else { throw fail("tenant id \(tenant.id) is not a GUID") }
            guard names.insert(tenant.id).inserted else { throw fail("tenant \(tenant.id) is listed twice") }
            if let domain = tenant.domain {
                guard EmulatorText.isDomain(domain), !EmulatorText.reservedTenants.contains(domain) else {
                    throw fail("tenant domain \(domain) is not a domain name")
                }
                guard names.insert(domain).inserted else { throw fail("tenant domain \(domain) is used twice") }
            }
        }
        var usernames = Set<String>()
        var objectIDs = Set<String>()
        for user in users {
            guard !user.username.isEmpty, user.username.utf8.count <= 256,
                user.username.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F })
            else { throw fail("username \(user.username) is empty, too long or contains spaces or control characters") }
            guard usernames.insert(user.username.lowercased()).inserted else { throw fail("username \(user.username) is used twice") }
            guard tenant(named: user.tenantID)?.id == user.tenantID else {
                throw fail("user \(user.username) names an unknown home tenant")
            }
            guard EmulatorText.isGUID(user.objectID), objectIDs.insert(user.objectID).inserted else {
                throw fail("user \(user.username) has a duplicate or non-GUID object id")
            }
            for guest in user.guestProfiles {
                guard tenant(named: guest.tenantID)?.id == guest.tenantID, guest.tenantID != user.tenantID else {
                    throw fail("user \(user.username) is a guest in an unknown tenant or in the home tenant")
                }
                guard EmulatorText.isGUID(guest.objectID), objectIDs.insert(guest.objectID).inserted else {
                    throw fail("user \(user.username) has a duplicate or non-GUID guest object id")
                }
            }
        }
        var clientIDs = Set<String>()
        for client in clients {
            guard !client.clientID.isEmpty, client.clientID.utf8.count <= 128, client.clientID.utf8.allSatisfy(EmulatorText.isUnreserved)
            else {
                throw fail("client id \(client.clientID) is empty, too long or not URL-safe")
            }
            guard clientIDs.insert(client.clientID).inserted else { throw fail("client \(client.clientID) is registered twice") }
            for uri in client.redirectURIs where RedirectURIMatcher.Parsed(uri) == nil {
                throw fail("client \(client.clientID) has the redirect URI \(uri), which is not an absolute URI without a fragment")
            }
            for credential in client.credentials {
                switch credential {
                case .secret(let secret):
                    guard !secret.isEmpty, secret.utf8.count <= 1024 else {
                        throw fail("client \(client.clientID) has a secret that is empty or longer than 1024 bytes")
                    }
                case .certificate(let pem):
                    do {
                        _ = try ClientAssertionVerifier(certificatePEM: Array(pem.utf8))
                    } catch {
                        throw fail("client \(client.clientID) has a certificate that cannot be read: \(error.message)")
                    }
                }
            }
            for (resource, roles) in client.appRoles {
                guard !resource.isEmpty, roles.allSatisfy({ !$0.isEmpty && !$0.contains(" ") }) else {
                    throw fail(
                        "client \(client.clientID) has an app role grant with an empty resource or a role that is empty or has a space")
                }
            }
        }
        if let advertisedOrigin {
            guard let url = URL(string: advertisedOrigin), url.scheme == "https" || url.scheme == "http", url.host?.isEmpty == false,
                url.path.isEmpty, url.query == nil, url.fragment == nil, url.user == nil
            else { throw fail("the advertised origin \(advertisedOrigin) is not an http(s) origin without a path") }
        }
        try validateManagedIdentities()
        if let autoSignIn, user(named: autoSignIn) == nil { throw fail("autoSignIn names an unknown user \(autoSignIn)") }
        guard !resourceAudience.isEmpty else { throw fail("the resource audience is empty") }
    }
}

extension MSALEmulator.Configuration {
    /// Checks the managed identities, the App Service header and the Arc token directory.
    private func validateManagedIdentities() throws(MSALEmulatorError) {
        func fail(_ message: String) -> MSALEmulatorError { MSALEmulatorError(.invalidConfiguration, message) }
        func isVisibleASCII(_ text: String) -> Bool { text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F } }
        var ids = Set<String>()
        var resourceIDs = Set<String>()
        for identity in managedIdentities {
            guard EmulatorText.isGUID(identity.clientID), EmulatorText.isGUID(identity.objectID) else {
                throw fail("managed identity \(identity.clientID) has a client or object id that is not a GUID")
            }
            guard ids.insert(identity.clientID).inserted, ids.insert(identity.objectID).inserted else {
                throw fail("managed identity \(identity.clientID) shares a client or object id with another one")
            }
            guard identity.resourceID.lowercased().hasPrefix("/subscriptions/"), identity.resourceID.utf8.count <= 1024,
                isVisibleASCII(identity.resourceID)
            else { throw fail("managed identity \(identity.clientID) has a resource id that is not an Azure resource id") }
            guard resourceIDs.insert(identity.resourceID.lowercased()).inserted else {
                throw fail("managed identity \(identity.clientID) shares its resource id with another one")
            }
            guard tenant(named: identity.tenantID)?.id == identity.tenantID else {
                throw fail("managed identity \(identity.clientID) names an unknown tenant")
            }
        }
        guard managedIdentities.filter(\.isSystemAssigned).count <= 1 else { throw fail("more than one system-assigned managed identity") }
        guard !appServiceIdentityHeader.isEmpty, appServiceIdentityHeader.utf8.count <= 256, isVisibleASCII(appServiceIdentityHeader)
        else { throw fail("the App Service identity header is empty, longer than 256 bytes or not visible ASCII") }
        if let arcTokenDirectory {
            guard arcTokenDirectory.hasPrefix("/"), arcTokenDirectory.utf8.count <= 1024,
                arcTokenDirectory.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
            else { throw fail("the Arc token directory is not an absolute path") }
        }
    }
}
