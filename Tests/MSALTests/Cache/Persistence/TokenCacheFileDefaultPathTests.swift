import Foundation
import Glibc
import MSAL
import Testing

@Suite("Token cache file: default location")
struct TokenCacheFileDefaultPathTests {
    func path(_ environment: [String: String], passwd: String? = "/passwd/home") throws -> String {
        try TokenCacheFile.defaultPath(environment: environment, passwdHome: { passwd })
    }

    @Test("An absolute XDG_CACHE_HOME wins")
    func xdg() throws {
        #expect(try path(["XDG_CACHE_HOME": "/x/cache", "HOME": "/home/u"]) == "/x/cache/msal/token_cache.json")
        #expect(try path(["XDG_CACHE_HOME": "/x/cache//"]) == "/x/cache/msal/token_cache.json")
        #expect(try path(["XDG_CACHE_HOME": "/"]) == "/msal/token_cache.json")
    }

    @Test("A relative or empty XDG_CACHE_HOME is ignored, as the XDG specification says", arguments: ["", "cache", "./cache", "~/cache"])
    func relativeXDG(_ value: String) throws {
        #expect(try path(["XDG_CACHE_HOME": value, "HOME": "/home/u"]) == "/home/u/.cache/msal/token_cache.json")
    }

    @Test("HOME is used when XDG_CACHE_HOME is unset")
    func home() throws {
        #expect(try path(["HOME": "/home/u/"]) == "/home/u/.cache/msal/token_cache.json")
    }

    @Test(
        "HOME and XDG_CACHE_HOME unset, empty or relative: the passwd home directory",
        arguments: [
            [:], ["HOME": ""], ["HOME": "relative"], ["XDG_CACHE_HOME": "", "HOME": ""],
        ] as [[String: String]])
    func passwdFallback(_ environment: [String: String]) throws {
        #expect(try path(environment) == "/passwd/home/.cache/msal/token_cache.json")
    }

    @Test("The real passwd lookup finds this user's home directory from /etc/passwd")
    func realPasswd() throws {
        let passwd = try String(contentsOfFile: "/etc/passwd", encoding: .utf8)
        let uid = String(geteuid())
        let entries = passwd.split(separator: "\n").map { $0.split(separator: ":", omittingEmptySubsequences: false) }
        let entry = try #require(entries.first { $0.count >= 7 && $0[2] == Substring(uid) })
        let home = String(entry[5])
        #expect(TokenCacheFile.passwdHomeDirectory() == home)
        #expect(try TokenCacheFile.defaultPath(environment: [:]) == home + "/.cache/msal/token_cache.json")
        #expect(try TokenCacheFile.defaultPath(environment: ["HOME": "x"]) == home + "/.cache/msal/token_cache.json")
    }

    @Test("No usable location at all is cacheLocationUnavailable", arguments: [nil, "", "relative/home"] as [String?])
    func unavailable(_ passwd: String?) {
        expectMSALError(.cacheLocationUnavailable, mentioning: ["XDG_CACHE_HOME", "HOME", "passwd"]) {
            _ = try path(["HOME": "relative"], passwd: passwd)
        }
    }

    @Test("The default path is usable as a cache file")
    func usable() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try TokenCacheFile(path: try TokenCacheFile.defaultPath(environment: ["XDG_CACHE_HOME": scratch.path]))
        try file.put("{}")
        #expect(RawFile.mode(scratch.path + "/msal") == 0o700)
        #expect(RawFile.mode(scratch.path + "/msal/token_cache.json") == 0o600)
    }
}
