/// Which authority hosts are the same cloud for the cache: entries written under any alias of a
/// group (login.microsoftonline.com, login.windows.net, …) answer lookups made with any other.
package struct CacheEnvironmentAliases: Sendable, Equatable {
    /// Lower-cased host → the group's identifier (its preferred cache host).
    private var groups: [String: String]

    /// The built-in Microsoft Entra alias groups.
    package static let builtIn: CacheEnvironmentAliases = {
        var aliases = CacheEnvironmentAliases(groups: [:])
        for group in KnownClouds.groups {
            _ = aliases.add(group.aliases, preferredCache: group.preferredCache)
        }
        return aliases
    }()

    private init(groups: [String: String]) {
        self.groups = groups
    }

    /// The group identifier of `host` (lower-cased); an unknown host is its own group.
    @inline(__always)
    package func group(of host: String) -> String {
        let host = CacheText.lowercased(host)
        return groups[host] ?? host
    }

    /// Every known alias of `host`'s group, `host` first.
    package func aliases(of host: String) -> [String] {
        let group = self.group(of: host)
        let lowered = CacheText.lowercased(host)
        return [lowered] + groups.filter { $0.value == group && $0.key != lowered }.map(\.key).sorted()
    }

    /// Adds a group learned from instance discovery. Returns whether any host changed group.
    package mutating func add(_ aliases: [String], preferredCache: String) -> Bool {
        let identifier = CacheText.lowercased(preferredCache)
        var changed = false
        for alias in aliases + [preferredCache] {
            let host = CacheText.lowercased(alias)
            if groups[host] != identifier {
                groups[host] = identifier
                changed = true
            }
        }
        return changed
    }
}
