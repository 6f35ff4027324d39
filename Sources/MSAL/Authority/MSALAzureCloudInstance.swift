/// A national cloud of Microsoft Entra.
public enum MSALAzureCloudInstance: Int, Sendable, Hashable, CaseIterable {
    /// The public cloud, `login.microsoftonline.com`.
    case publicCloudInstance
    /// Azure operated by 21Vianet (China), `login.chinacloudapi.cn`.
    case chinaCloudInstance
    /// The retired German cloud, `login.microsoftonline.de`.
    case germanyCloudInstance
    /// Azure US Government, `login.microsoftonline.us`.
    case usGovernmentCloudInstance
    /// The French sovereign cloud, `login.sovcloud-identity.fr`.
    case franceCloudInstance
    /// The Delos sovereign cloud (Germany), `login.sovcloud-identity.de`.
    case delosCloudInstance
    /// The Singapore government sovereign cloud, `login.sovcloud-identity.sg`.
    case govSGCloudInstance

    /// The sign-in host of the cloud.
    public var host: String {
        switch self {
        case .publicCloudInstance: "login.microsoftonline.com"
        case .chinaCloudInstance: "login.chinacloudapi.cn"
        case .germanyCloudInstance: "login.microsoftonline.de"
        case .usGovernmentCloudInstance: "login.microsoftonline.us"
        case .franceCloudInstance: "login.sovcloud-identity.fr"
        case .delosCloudInstance: "login.sovcloud-identity.de"
        case .govSGCloudInstance: "login.sovcloud-identity.sg"
        }
    }
}
