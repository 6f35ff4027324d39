import Foundation
import Glibc
import Testing

@testable import MSAL

/// A failed write of the token cache file during a real operation of the public API: the refresh
/// (or sign-in, or sign-out) fails with a typed `cacheIOFailure` carrying the `errno` and the
/// request's correlation id; the file stays byte for byte what it was, no temporary file is left,
/// and the application keeps answering from what is on disk (nothing unsaved is served).
@Suite("Fault injection: cache file writes")
struct CacheWriteFaultTests {
    struct StepFault: Sendable, CustomTestStringConvertible {
        var step: TokenCacheFileOptions.WriteStep
        var code: Int32
        var testDescription: String { "\(step.rawValue): \(String(cString: strerror(code)))" }
    }

    /// Failures before the rename: the old file must survive every one of them.
    static let beforeRename: [StepFault] = [
        StepFault(step: .createTemporaryFile, code: ENOSPC),
        StepFault(step: .createTemporaryFile, code: EMFILE),
        StepFault(step: .write, code: ENOSPC),
        StepFault(step: .write, code: EDQUOT),
        StepFault(step: .write, code: EIO),
        StepFault(step: .sync, code: EIO),
        StepFault(step: .sync, code: ENOSPC),
        StepFault(step: .rename, code: EIO),
        StepFault(step: .rename, code: EROFS),
    ]

    @Test(
        "A silent refresh whose cache write fails: cacheIOFailure with errno and correlation id; the file is unchanged and the cached token still served",
        arguments: beforeRename)
    func silentRefresh(_ fault: StepFault) async throws {
        let harness = try StorageFaultHarness()
        defer { harness.scratch.remove() }
        try harness.seed()
        let before = try #require(harness.bytes())

        harness.faults.arm(fault.step, errno: fault.code)
        let parameters = try harness.silentParameters(forceRefresh: true)
        let error = await expectMSALError { try await harness.app.acquireTokenSilent(with: parameters) }
        expectCacheIOFailure(error, errno: fault.code, path: harness.path, correlationID: parameters.correlationId)
        #expect(harness.faults.steps.contains(fault.step), "the fault was reached")
        #expect(harness.transport.tokenRequests.count == 1, "a cache failure is not a reason to ask again")
        #expect(harness.bytes() == before, "the cache file is unchanged")
        #expect(harness.names() == ["token_cache.json", "token_cache.json.lock"], "no temporary file is left")

        // The application serves what is on disk, not the tokens it failed to store.
        harness.faults.disarm()
        let cached = try await harness.app.acquireTokenSilent(with: try harness.silentParameters(forceRefresh: false))
        #expect(cached.accessToken == "at-cached")
        #expect(cached.tokenSource == .cache)
        // With the disk back, the next refresh is stored.
        let refreshed = try await harness.app.acquireTokenSilent(with: try harness.silentParameters(forceRefresh: true))
        #expect(refreshed.accessToken == "at-2")
        #expect(String(decoding: try #require(harness.bytes()), as: UTF8.self).contains("at-2"))
        #expect(!String(decoding: try #require(harness.bytes()), as: UTF8.self).contains("at-1"))
    }

    @Test("The directory sync failing after the rename: cacheIOFailure saying the new content is in place, and it is, complete")
    func directorySyncAfterRename() async throws {
        let harness = try StorageFaultHarness()
        defer { harness.scratch.remove() }
        try harness.seed()
        harness.faults.arm(.syncDirectory, errno: EIO)
        let parameters = try harness.silentParameters(forceRefresh: true)
        let error = await expectMSALError { try await harness.app.acquireTokenSilent(with: parameters) }
        expectCacheIOFailure(error, errno: EIO, path: harness.path, correlationID: parameters.correlationId)
        #expect(error?.message.contains("the new content is in place") == true)
        #expect(harness.names() == ["token_cache.json", "token_cache.json.lock"])
        let document = try TokenCacheDocument(parsing: try #require(harness.bytes()))
        #expect(document[.accessToken].values.compactMap { $0["secret"] } == ["at-1"])

        // The application reads the file again and serves the new token.
        harness.faults.disarm()
        let cached = try await harness.app.acquireTokenSilent(with: try harness.silentParameters(forceRefresh: false))
        #expect(cached.accessToken == "at-1")
        #expect(cached.tokenSource == .cache)
    }

    @Test("A device code sign-in whose cache write fails on a full disk: cacheIOFailure with the correlation id; no account appears")
    func deviceCodeSignIn() async throws {
        let harness = try StorageFaultHarness()
        defer { harness.scratch.remove() }
        try harness.seed()
        let before = try #require(harness.bytes())
        harness.faults.arm(.write, errno: ENOSPC)
        let parameters = MSALTokenParameters(scopes: ["User.Read"])
        parameters.correlationId = UUID()
        let error = await expectMSALError { try await harness.app.acquireTokenWithDeviceCode(with: parameters) { _ in } }
        expectCacheIOFailure(error, errno: ENOSPC, path: harness.path, correlationID: parameters.correlationId)
        #expect(harness.bytes() == before)
        #expect(harness.temporaryFiles().isEmpty)
        #expect(try harness.app.allAccounts().map(\.identifier) == [TestAccount.abe.home])
    }

    @Test("Removing an account on a full disk: cacheIOFailure; the account and its tokens stay")
    func removeAccount() throws {
        let harness = try StorageFaultHarness()
        defer { harness.scratch.remove() }
        try harness.seed()
        let before = try #require(harness.bytes())
        let account = try harness.app.account(forIdentifier: TestAccount.abe.home)
        harness.faults.arm(.write, errno: ENOSPC)
        let error = expectMSALError(.cacheIOFailure, mentioning: [harness.path, "disk full"]) { try harness.app.remove(account) }
        #expect((error?.underlyingError as? POSIXError)?.code == .ENOSPC)
        #expect(harness.bytes() == before)
        #expect(harness.temporaryFiles().isEmpty)
        #expect(try harness.app.allAccounts().map(\.identifier) == [TestAccount.abe.home])
        harness.faults.disarm()
        try harness.app.remove(account)
        #expect(try harness.app.allAccounts().isEmpty)
    }

    @Test(
        "A read-only cache directory (a real EPERM/EACCES from the kernel): cacheIOFailure on refresh; the file is unchanged; writable again, the refresh is stored"
    )
    func readOnlyDirectory() async throws {
        let harness = try StorageFaultHarness()
        defer { harness.scratch.remove() }
        try harness.seed()
        let before = try #require(harness.bytes())
        try #require(makeReadOnly(harness.scratch.path), "could not make \(harness.scratch.path) read-only")
        let parameters = try harness.silentParameters(forceRefresh: true)
        let error = await expectMSALError { try await harness.app.acquireTokenSilent(with: parameters) }
        makeWritable(harness.scratch.path)
        expectCacheIOFailure(error, errno: runningAsRoot ? EPERM : EACCES, path: harness.path, correlationID: parameters.correlationId)
        #expect(error?.message.contains("create a temporary file") == true)
        #expect(harness.bytes() == before)
        #expect(harness.temporaryFiles().isEmpty)
        let refreshed = try await harness.app.acquireTokenSilent(with: try harness.silentParameters(forceRefresh: true))
        #expect(refreshed.accessToken == "at-2")
    }

    @Test(
        "The file size limit hit part-way through a token cache write in another process (a real EFBIG): the write fails typed, the file is unchanged"
    )
    func fileSizeLimitInAnotherProcess() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let seeded = try await StressWorker.run(["cache-save", scratch.file(), "1", "alice"])
        try #require(seeded.status == 0, "\(seeded.standardError)")
        let before = try #require(FileManager.default.contents(atPath: scratch.file()))
        let outcome = try await StressWorker.run(["cache-save-limited", scratch.file(), "bob"])
        #expect(outcome.status == 1, "\(outcome)")
        #expect(outcome.standardError.contains("error \(MSALInternalError.cacheIOFailure.rawValue) "), "\(outcome.standardError)")
        #expect(outcome.standardError.contains("File too large (errno \(EFBIG))"), "\(outcome.standardError)")
        #expect(FileManager.default.contents(atPath: scratch.file()) == before)
        #expect(scratch.names() == ["token_cache.json", "token_cache.json.lock"])
    }
}
