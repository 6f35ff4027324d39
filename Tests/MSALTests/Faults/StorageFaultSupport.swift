import Foundation
import Glibc
import MSALJSON
import MSALSupport
import Testing

@testable import MSAL

/// Which write steps of the cache file fail, and with which `errno`; changed while the test runs.
final class WriteFaultSwitch: Sendable {
    private let armed = Mutex<[TokenCacheFileOptions.WriteStep: Int32]>([:])
    private let seen = Mutex<[TokenCacheFileOptions.WriteStep]>([])

    func arm(_ step: TokenCacheFileOptions.WriteStep, errno code: Int32) {
        armed.withLock { $0[step] = code }
    }

    func disarm() {
        armed.withLock { $0.removeAll() }
    }

    /// The `writeFault` hook.
    func failure(at step: TokenCacheFileOptions.WriteStep) -> Int32? {
        seen.withLock { $0.append(step) }
        return armed.withLock { $0[step] }
    }

    /// Every step the hook was consulted at, in order.
    var steps: [TokenCacheFileOptions.WriteStep] { seen.withLock { $0 } }
}

/// An application on the fake identity provider (`FlowTransport`) whose token cache is a file in a
/// scratch directory, with the file's write steps under a ``WriteFaultSwitch``.
///
/// The token endpoint answers every refresh with new tokens (`at-1`, `rt-1`, `at-2`, …) for
/// ``TestAccount/abe``; device code polls with tokens for ``TestAccount/ben``.
struct StorageFaultHarness {
    let scratch: ScratchDirectory
    let faults = WriteFaultSwitch()
    let clock = ManualClock(FlowIdentity.now)
    let transport: FlowTransport
    let app: MSALPublicClientApplication

    var path: String { scratch.file() }

    init(scratch: ScratchDirectory? = nil) throws {
        let scratch = try scratch ?? ScratchDirectory()
        let issued = Mutex(0)
        let next: @Sendable () -> Int = {
            issued.withLock {
                $0 += 1; return $0
            }
        }
        let transport = FlowTransport(
            token: { request in
                let number = next()
                if request.formParameters.contains(where: { $0 == ("grant_type", "urn:ietf:params:oauth:grant-type:device_code") }) {
                    return FlowTokens.success(accessToken: "at-\(number)", refreshToken: "rt-\(number)", account: .ben)
                }
                return FlowTokens.success(accessToken: "at-\(number)", refreshToken: "rt-\(number)")
            },
            deviceCode: { _ in
                .json(
                    200,
                    #"{"device_code":"DC","user_code":"UC","verification_uri":"https://microsoft.com/devicelogin","expires_in":900,"interval":5,"message":"Enter UC"}"#
                )
            })
        self.scratch = scratch
        self.transport = transport
        self.app = try Self.application(path: scratch.file(), transport: transport, clock: clock, faults: faults)
    }

    /// An application on the file at `path`; `faults` decides which write steps fail.
    static func application(
        path: String, clientID: String = FlowIdentity.clientID, transport: any MSALHTTPTransport, clock: ManualClock,
        faults: WriteFaultSwitch? = nil
    ) throws -> MSALPublicClientApplication {
        let config = MSALPublicClientApplicationConfig(
            clientId: clientID, redirectUri: nil,
            authority: try MSALAuthority.authority(url: URL(string: "https://login.microsoftonline.com/common")!))
        var cacheConfig = MSALCacheConfig(storage: .file(path: path), fileLockTimeout: 10)
        if let faults {
            var options = TokenCacheFileOptions()
            options.writeFault = { faults.failure(at: $0) }
            cacheConfig.fileOptions = options
        }
        config.cacheConfig = cacheConfig
        config.transport = transport
        config.clock = clock
        return try MSALPublicClientApplication(configuration: config)
    }

    /// Stores what a sign-in of ``TestAccount/abe`` would have: `at-cached` (valid for the test's
    /// hour), `rt-cached`, the ID token and the account.
    func seed() throws {
        let clientID = app.configuration.clientId
        let response = TokenResponse(
            accessToken: "at-cached", expiresIn: 4600, refreshToken: "rt-cached",
            idToken: FlowTokens.idToken(.abe, audience: clientID), clientInfo: FlowTokens.clientInfo(.abe),
            scope: "email openid profile User.Read")
        let context = TokenCacheWriteContext(
            clientID: clientID, environment: "login.windows.net", authorityTenant: TestAccount.abe.tenant, requestedScopes: [],
            now: FlowIdentity.issued)
        let entries = try TokenCacheEntries(response: response, context: context)
        try app.cache.write(clientID: clientID) { $0.save(entries, clientID: clientID) }
    }

    /// The cache file's bytes, `nil` when there is none.
    func bytes() -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    /// The names in the scratch directory, sorted.
    func names() -> [String] { scratch.names() }

    /// Leftover temporary files.
    func temporaryFiles() -> [String] { names().filter { $0.hasPrefix("token_cache.json.tmp-") } }

    /// Silent parameters for Abe with a fresh correlation id.
    func silentParameters(forceRefresh: Bool) throws -> MSALSilentTokenParameters {
        let account = try app.account(forIdentifier: TestAccount.abe.home)
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
        parameters.forceRefresh = forceRefresh
        parameters.correlationId = UUID()
        return parameters
    }
}

/// Makes `directory` refuse new entries: `chattr +i` as root (permission bits do not stop root),
/// mode 0500 otherwise. Returns whether it worked.
func makeReadOnly(_ directory: String) -> Bool {
    runningAsRoot ? chattr("+i", directory) : chmod(directory, 0o500) == 0
}

/// Undoes ``makeReadOnly(_:)``.
func makeWritable(_ directory: String) {
    if runningAsRoot {
        chattr("-i", directory)
    } else {
        chmod(directory, 0o700)
    }
}

/// The checks every failed cache write shares: a typed `cacheIOFailure` naming the path, carrying
/// the `errno` and the request's correlation id.
func expectCacheIOFailure(
    _ error: MSALFailure?, errno code: Int32, path: String, correlationID: UUID?, sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let error else { return }
    #expect(error.code == .internal, "\(error)", sourceLocation: sourceLocation)
    #expect(error.internalCode == .cacheIOFailure, "\(error)", sourceLocation: sourceLocation)
    #expect(error.correlationID == correlationID, "\(error)", sourceLocation: sourceLocation)
    #expect(error.message.contains(path), "\(error.message)", sourceLocation: sourceLocation)
    #expect(error.message.contains("(errno \(code))"), "\(error.message)", sourceLocation: sourceLocation)
    #expect(error.message.contains("disk full") == (code == ENOSPC || code == EDQUOT), "\(error.message)", sourceLocation: sourceLocation)
    #expect((error.underlyingError as? POSIXError)?.code.rawValue == code, sourceLocation: sourceLocation)
}
