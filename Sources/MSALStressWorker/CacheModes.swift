import Foundation
import Glibc
import MSAL

/// Modes exercising the whole token cache (`TokenCache`) on a file shared between processes.
enum CacheModes {
    static let all: [String: WorkerMode] = [
        "cache-save": WorkerMode(usage: "PATH COUNT TAG [PAUSE_MS]", run: save),
        "cache-count": WorkerMode(usage: "PATH COUNT TAG", run: count),
        "cache-kill-at": WorkerMode(usage: "PATH TAG STEP", run: killAt),
        "cache-save-limited": WorkerMode(usage: "PATH TAG", run: saveLimited),
        "proof-key": WorkerMode(usage: "PATH KIND", run: proofKey),
    ]

    /// Prints the thumbprint of the proof key of KIND (`dpop`, `shr`) kept beside the cache at PATH
    /// (a file path, or `secret:SIGNAL`), making and keeping one when there is none.
    static func proofKey(_ arguments: [String]) throws {
        guard arguments.count == 2, let kind = ProofKey.Kind(rawValue: arguments[1]) else {
            WorkerMode.fail(usage: "usage: proof-key PATH dpop|shr")
        }
        let cache = try TokenCache(config: storageConfig(arguments[0]))
        print(try ProofKeys(place: { try cache.proofKeyPlace() }).key(kind).thumbprint)
    }

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
        let cache = try TokenCache(config: storageConfig(arguments[0]))
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
                let current =
                    contents.refreshToken(homeAccountID: "\(tag).tenant", environment: "login.windows.net", clientID: client)?
                    .entry["secret"].flatMap { Int($0) } ?? 0
                guard current == index - 1 else {
                    throw LostUpdate(description: "lost update: write \(index) of \(tag) found \(current)")
                }
                contents.save(entries, clientID: client)
            }
        }
    }

    /// COUNT times: save a token response for the account `TAG-i` through a file-backed token cache
    /// (a new account each time, so a lost update shows as a missing account), pausing PAUSE_MS
    /// milliseconds between saves when given (an app's pace rather than a tight loop).
    static func save(_ arguments: [String]) throws {
        let usage = "usage: cache-save PATH COUNT TAG [PAUSE_MS]"
        guard arguments.count == 3 || arguments.count == 4 else { WorkerMode.fail(usage: usage) }
        let pause = arguments.count == 4 ? UInt32(arguments[3]) ?? 0 : 0
        let count = WorkerMode.count(arguments, 1, usage)
        let tag = arguments[2]
        let cache = try TokenCache(config: storageConfig(arguments[0]))
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
            if pause > 0 { usleep(pause * 1000) }
        }
    }

    /// Saves the account `TAG` through a file-backed token cache and kills itself with `SIGKILL` at
    /// the write step STEP (`create`, `write` — half the bytes written —, `sync`, `rename`,
    /// `sync-directory`; see `TokenCacheFileOptions.WriteStep`).
    static func killAt(_ arguments: [String]) throws {
        let usage = "usage: cache-kill-at PATH TAG STEP"
        guard arguments.count == 3, let step = TokenCacheFileOptions.WriteStep(rawValue: arguments[2]) else {
            WorkerMode.fail(usage: usage)
        }
        var options = TokenCacheFileOptions()
        options.writeFault = { current in
            if current == step {
                _ = raise(SIGKILL)
                _exit(9)
            }
            return nil
        }
        var config = MSALCacheConfig(storage: .file(path: arguments[0]), fileLockTimeout: 300)
        config.fileOptions = options
        try saveOne(try TokenCache(config: config), uid: arguments[1])
    }

    /// Limits the process's file size to the cache file's current size (`RLIMIT_FSIZE`, `SIGXFSZ`
    /// ignored) and saves the account `TAG`, so the larger new document fails with `EFBIG` part-way.
    static func saveLimited(_ arguments: [String]) throws {
        guard arguments.count == 2 else { WorkerMode.fail(usage: "usage: cache-save-limited PATH TAG") }
        var info = stat()
        guard stat(arguments[0], &info) == 0 else {
            WorkerMode.printError("stat failed: errno \(errno)")
            exit(3)
        }
        var limit = rlimit(rlim_cur: rlim_t(info.st_size), rlim_max: rlim_t(info.st_size))
        guard setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit) == 0 else {
            WorkerMode.printError("setrlimit failed: errno \(errno)")
            exit(3)
        }
        _ = signal(SIGXFSZ, SIG_IGN)
        try saveOne(try TokenCache(config: MSALCacheConfig(storage: .file(path: arguments[0]), fileLockTimeout: 300)), uid: arguments[1])
    }

    /// Saves a token response for the account `uid` (tenant `tenant`, client `stress-client`).
    static func saveOne(_ cache: TokenCache, uid: String) throws {
        let client = "stress-client"
        let response = TokenResponse(
            accessToken: "at-\(uid)", expiresIn: 3600, refreshToken: "rt-\(uid)",
            idToken: idToken(uid: uid), clientInfo: base64URL(#"{"uid":"\#(uid)","utid":"tenant"}"#), scope: "User.Read")
        let context = TokenCacheWriteContext(
            clientID: client, environment: "login.windows.net", authorityTenant: "tenant", requestedScopes: ["User.Read"],
            now: Int64(Date().timeIntervalSince1970))
        let entries = try TokenCacheEntries(response: response, context: context)
        try cache.write(clientID: client) { contents in contents.save(entries, clientID: client) }
    }

    /// The cache configuration for PATH: a file, or any storage `SecretServiceModes.cacheConfig(_:)`
    /// names when PATH does not start with `/`.
    static func storageConfig(_ path: String) -> MSALCacheConfig {
        path.hasPrefix("/") ? MSALCacheConfig(storage: .file(path: path), fileLockTimeout: 300) : SecretServiceModes.cacheConfig(path)
    }

    static func idToken(uid: String) -> String {
        "e30." + base64URL(#"{"oid":"\#(uid)","tid":"tenant","sub":"\#(uid)","preferred_username":"\#(uid)@example.com"}"#) + ".c2ln"
    }

    static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
