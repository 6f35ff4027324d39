import Foundation
import MSAL

/// Modes exercising the whole token cache (`TokenCache`) on a file shared between processes.
enum CacheModes {
    static let all: [String: WorkerMode] = [
        "cache-save": WorkerMode(usage: "PATH COUNT TAG", run: save),
        "cache-count": WorkerMode(usage: "PATH COUNT TAG", run: count),
    ]

    struct LostUpdate: Error, CustomStringConvertible {
        var description: String
    }

    /// COUNT times, in one cache write each: read the refresh token of the account `TAG` (the last
    /// value this process wrote, `i - 1`), check it, and save a response whose refresh token is `i`.
    /// Another process's write that dropped ours shows as a mismatch, and the worker fails.
    static func count(_ arguments: [String]) throws {
        let usage = "usage: cache-count PATH COUNT TAG"
        guard arguments.count == 3 else { WorkerMode.fail(usage: usage) }
        let count = WorkerMode.count(arguments, 1, usage)
        let tag = arguments[2]
        let cache = try TokenCache(config: MSALCacheConfig(storage: .file(path: arguments[0]), fileLockTimeout: 300))
        let client = "stress-client"
        for index in 1...count {
            let response = TokenResponse(
                accessToken: "at-\(tag)-\(index)", expiresIn: 3600, refreshToken: String(index),
                idToken: idToken(uid: tag), clientInfo: base64URL(#"{"uid":"\#(tag)","utid":"tenant"}"#), scope: "User.Read")
            let context = TokenCacheWriteContext(
                clientID: client, environment: "login.windows.net", authorityTenant: "tenant", requestedScopes: ["User.Read"],
                now: Int64(Date().timeIntervalSince1970))
            let entries = try TokenCacheEntries(response: response, context: context)
            try cache.write(clientID: client) { contents in
                let current = contents.refreshToken(homeAccountID: "\(tag).tenant", environment: "login.windows.net", clientID: client)?
                    .entry["secret"].flatMap { Int($0) } ?? 0
                guard current == index - 1 else {
                    throw LostUpdate(description: "lost update: write \(index) of \(tag) found \(current)")
                }
                contents.save(entries, clientID: client)
            }
        }
    }

    /// COUNT times: save a token response for the account `TAG-i` through a file-backed token cache
    /// (a new account each time, so a lost update shows as a missing account).
    static func save(_ arguments: [String]) throws {
        let usage = "usage: cache-save PATH COUNT TAG"
        guard arguments.count == 3 else { WorkerMode.fail(usage: usage) }
        let count = WorkerMode.count(arguments, 1, usage)
        let tag = arguments[2]
        let cache = try TokenCache(config: MSALCacheConfig(storage: .file(path: arguments[0]), fileLockTimeout: 300))
        let client = "stress-client"
        for index in 0..<count {
            let uid = "\(tag)-\(index)"
            let response = TokenResponse(
                accessToken: "at-\(uid)", expiresIn: 3600, refreshToken: "rt-\(uid)",
                idToken: idToken(uid: uid), clientInfo: base64URL(#"{"uid":"\#(uid)","utid":"tenant"}"#), scope: "User.Read")
            let context = TokenCacheWriteContext(
                clientID: client, environment: "login.windows.net", authorityTenant: "tenant", requestedScopes: ["User.Read"],
                now: Int64(Date().timeIntervalSince1970))
            let entries = try TokenCacheEntries(response: response, context: context)
            try cache.write(clientID: client) { contents in contents.save(entries, clientID: client) }
        }
    }

    static func idToken(uid: String) -> String {
        "e30." + base64URL(#"{"oid":"\#(uid)","tid":"tenant","sub":"\#(uid)","preferred_username":"\#(uid)@example.com"}"#) + ".c2ln"
    }

    static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
