import Foundation
import MSAL

/// The process's peak resident set so far, in KiB (`ru_maxrss` on Linux).
func peakResidentKiB() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Int(usage.ru_maxrss)
}

/// Loads `document` as an app does (a file cache, the public API), lists its accounts and makes 16
/// silent requests, then prints the peak resident memory before and after as JSON.
func measureMemory(document: String) async throws {
    let before = peakResidentKiB()
    // A private copy, so the app's lock and any write never touch the shared document; `cp` runs in
    // a child process, whose memory is not this process's.
    let copy = FileManager.default.temporaryDirectory.appendingPathComponent("msal-memory-\(getpid()).json").path
    let cp = Process()
    cp.executableURL = URL(fileURLWithPath: "/bin/cp")
    cp.arguments = [document, copy]
    try cp.run()
    cp.waitUntilExit()
    guard cp.terminationStatus == 0 else { throw CocoaError(.fileReadUnknown) }
    defer { try? FileManager.default.removeItem(atPath: copy) }
    chmod(copy, 0o600)

    let config = MSALPublicClientApplicationConfig(
        clientId: "5a9c3e7b-2d4f-4a6c-8e0b-1c3d5e7f9a2b", redirectUri: nil,
        authority: try MSALAuthority(url: URL(string: "https://login.microsoftonline.com/organizations")!))
    config.cacheConfig = MSALCacheConfig(storage: .file(path: copy))
    let application = try MSALPublicClientApplication(configuration: config)
    // Loads the cache; no account has that identifier (an error since `account(forIdentifier:)`
    // reports a missing account as MSAL for iOS does), and the list below fails if the load did.
    _ = try? application.account(forIdentifier: "none.none")
    let loaded = peakResidentKiB()
    let accounts = try application.allAccounts()
    let listed = peakResidentKiB()
    let step = max(1, accounts.count / 16)
    var hits = 0
    for account in stride(from: 0, to: accounts.count, by: step).prefix(16).map({ accounts[$0] }) {
        let result = try await application.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        hits += result.accessToken.isEmpty ? 0 : 1
    }
    let after = peakResidentKiB()
    print(
        #"{"accounts": \#(accounts.count), "silent_hits": \#(hits), "rss_before_kib": \#(before), "peak_rss_loaded_kib": \#(loaded), "peak_rss_listed_kib": \#(listed), "peak_rss_load_and_query_kib": \#(after)}"#
    )
}
