/// Where a confidential client's app-token requests go: the global endpoint, or a regional one
/// (ESTS-R, `<region>.login.microsoft.com`) in the Azure region the service runs in, which keeps
/// token requests inside the region and available when the global endpoint is not.
public enum MSALAzureRegion: Sendable, Hashable, CustomStringConvertible {
    /// The region named, such as `westus2` (lower-case letters, digits and hyphens, at most 63
    /// characters, as MSAL for Python validates it).
    case named(String)
    /// The region the service runs in: `REGION_NAME` from the environment, else the instance
    /// metadata service's `location` (asked once, with a 2-second limit). When neither answers, the
    /// global endpoint is used.
    case autoDetect
    /// The global endpoint, whatever `MSAL_FORCE_REGION` says.
    case disabled

    /// `westus2`, `auto-detect` or `disabled`.
    public var description: String {
        switch self {
        case .named(let name): name
        case .autoDetect: "auto-detect"
        case .disabled: "disabled"
        }
    }

    /// `name` lower-cased with spaces removed when it is a valid region name, else `nil`.
    package static func normalized(_ name: String) -> String? {
        let folded = String(name.lowercased().filter { $0 != " " })
        let bytes = Array(folded.utf8)
        guard (1...63).contains(bytes.count), let first = bytes.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first),
            let last = bytes.last, last != UInt8(ascii: "-")
        else { return nil }
        let allowed = bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-")
        }
        return allowed ? folded : nil
    }

    /// The regional host for the global `host`: `<region>.login.microsoft.com` for the public
    /// cloud's hosts, `<region>.<host>` for any other (a sovereign cloud), `host` itself when it
    /// already names the region.
    package static func regionalHost(_ host: String, region: String) -> String {
        let lowered = host.lowercased()
        if lowered.hasPrefix(region + ".") { return lowered }
        let publicCloud = ["login.microsoftonline.com", "login.microsoft.com", "login.windows.net", "sts.windows.net"]
        return publicCloud.contains(lowered) ? "\(region).login.microsoft.com" : "\(region).\(lowered)"
    }
}
