/// Opt-ins that relax authority validation, for local providers and tests.
public struct MSALAuthorityOptions: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int

    /// Creates options from raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Accept plain `http` when the host is a loopback address (`127.0.0.1`, `[::1]`, `localhost`),
    /// for a local identity provider such as `MSALEmulator`. Without it every authority must use `https`.
    /// Discovered endpoints may then use `http` only on the same loopback host.
    public static let allowInsecureLoopback = MSALAuthorityOptions(rawValue: 1 << 0)
}
