/// Where a managed identity's tokens come from, found from the environment the Azure platform
/// sets, in the order MSAL.NET checks (a variable counts only when it is set and not empty):
///
/// 1. ``serviceFabric``: `IDENTITY_ENDPOINT`, `IDENTITY_HEADER` and `IDENTITY_SERVER_THUMBPRINT`;
/// 2. ``appService`` (also Azure Functions, Container Apps, Automation): `IDENTITY_ENDPOINT` and `IDENTITY_HEADER`;
/// 3. ``machineLearning``: `MSI_ENDPOINT` and `MSI_SECRET`;
/// 4. ``cloudShell``: `MSI_ENDPOINT` alone;
/// 5. ``azureArc``: `IDENTITY_ENDPOINT` and `IMDS_ENDPOINT`, or the Arc agent installed
///    (`/opt/azcmagent/bin/himds`);
/// 6. ``imds``: the instance metadata service of a VM (`http://169.254.169.254`, or
///    `AZURE_POD_IDENTITY_AUTHORITY_HOST`).
public enum MSALManagedIdentitySource: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Azure Service Fabric (API 2019-07-01-preview, `secret` header).
    case serviceFabric = "service_fabric"
    /// Azure App Service, Functions, Container Apps and Automation (API 2019-08-01, `X-IDENTITY-HEADER`).
    case appService = "app_service"
    /// Azure Machine Learning (API 2017-09-01, `secret` header).
    case machineLearning = "machine_learning"
    /// Azure Cloud Shell (a form `POST`, `Metadata: true`).
    case cloudShell = "cloud_shell"
    /// Azure Arc-enabled servers (API 2020-06-01; a `WWW-Authenticate: Basic realm=<key file>`
    /// challenge the agent writes a secret for).
    case azureArc = "azure_arc"
    /// The Azure instance metadata service (API 2018-02-01, `Metadata: true`).
    case imds

    /// The source's name, as MSAL for Python and the `msal` command print it.
    public var description: String { rawValue }

    /// The source the environment `variables` describe; `agentInstalled` says whether the Azure
    /// Arc agent is installed on this machine.
    package static func detect(_ variables: [String: String], arcAgentInstalled: Bool) -> MSALManagedIdentitySource {
        func has(_ name: String) -> Bool { !(variables[name] ?? "").isEmpty }
        if has("IDENTITY_ENDPOINT"), has("IDENTITY_HEADER") {
            return has("IDENTITY_SERVER_THUMBPRINT") ? .serviceFabric : .appService
        }
        if has("MSI_ENDPOINT") { return has("MSI_SECRET") ? .machineLearning : .cloudShell }
        if has("IDENTITY_ENDPOINT") && has("IMDS_ENDPOINT") || arcAgentInstalled { return .azureArc }
        return .imds
    }
}
