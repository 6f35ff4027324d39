import Foundation
import Glibc

extension TokenCacheFile {
    /// Where the cache lives when the app names no file.
    ///
    /// `$XDG_CACHE_HOME/msal/token_cache.json` when `XDG_CACHE_HOME` is an absolute path (the XDG base
    /// directory specification ignores relative ones), else `$HOME/.cache/msal/token_cache.json` when
    /// `HOME` is absolute, else the same under the home directory of the effective user's passwd entry;
    /// with none of these, `cacheLocationUnavailable`.
    package static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        try defaultPath(environment: environment, passwdHome: passwdHomeDirectory)
    }

    /// ``defaultPath(environment:)`` with the passwd lookup replaced, for tests.
    package static func defaultPath(environment: [String: String], passwdHome: () -> String?) throws -> String {
        if let cacheHome = environment["XDG_CACHE_HOME"], cacheHome.hasPrefix("/") {
            return joined(cacheHome, "msal/token_cache.json")
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return joined(home, ".cache/msal/token_cache.json")
        }
        if let home = passwdHome(), home.hasPrefix("/") {
            return joined(home, ".cache/msal/token_cache.json")
        }
        throw MSALFailure.cacheLocationUnavailable(
            "No token cache location: XDG_CACHE_HOME and HOME are unset or not absolute, and the passwd entry of uid "
                + "\(geteuid()) has no absolute home directory; pass a cache file path")
    }

    /// The home directory in the passwd entry of the effective user (`getpwuid_r`), if any.
    package static func passwdHomeDirectory() -> String? {
        var size = sysconf(Int32(_SC_GETPW_R_SIZE_MAX))
        if size <= 0 {
            size = 16_384
        }
        while size <= 1 << 20 {
            var entry = passwd()
            var found: UnsafeMutablePointer<passwd>?
            var buffer = [CChar](repeating: 0, count: size)
            let (status, home): (Int32, String?) = buffer.withUnsafeMutableBufferPointer { storage in
                let status = getpwuid_r(geteuid(), &entry, storage.baseAddress!, storage.count, &found)
                guard status == 0, found != nil, let directory = entry.pw_dir else {
                    return (status, nil)
                }
                return (status, String(cString: directory))
            }
            if status == ERANGE {
                size *= 2
                continue
            }
            return home
        }
        return nil
    }

    /// `base/rest` without a doubled slash.
    private static func joined(_ base: String, _ rest: String) -> String {
        var base = Substring(base)
        while base.hasSuffix("/") {
            base = base.dropLast()
        }
        return base + "/" + rest
    }
}
