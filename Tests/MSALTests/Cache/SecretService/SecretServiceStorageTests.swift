import Foundation
import MSALEmulator
import MSALJOSE
import MSALSupport
import Testing

@testable import MSAL

/// Secret Service storage against a real `gnome-keyring-daemon` on a private D-Bus session
/// (``SecretServiceSession``), with the SDK running in worker processes, and MSAL for Python's
/// msal-extensions (libsecret persistence) on the same item. Serialized: each test starts a bus, a
/// daemon and several processes, which in a full parallel run on two cores is load enough.
@Suite("Secret Service storage (real gnome-keyring)", .serialized, .timeLimit(.minutes(5)))
struct SecretServiceStorageTests {
    /// msal-extensions' default schema name for `signal`: the SHA-256 of the path as given, in hex.
    static func schema(_ signal: String) throws -> String {
        Hex.lowercase(try MessageDigest.sha256(Array(signal.utf8)))
    }

    /// The Python of `.build/keyring-venv` (MSAL for Python, msal-extensions, Debian's PyGObject).
    static let keyringPython = PythonMSAL.packageRoot.appendingPathComponent(".build/keyring-venv/bin/python").path
    static let script = PythonMSAL.scriptsDirectory.appendingPathComponent("secret_service.py").path
    /// The `msal` command, built beside the worker.
    static let msal = StressWorker.executable.deletingLastPathComponent().appendingPathComponent("msal").path

    static func requirePython() throws {
        guard FileManager.default.isExecutableFile(atPath: keyringPython) else {
            throw SecretServiceSession.Failure(
                description: "\(keyringPython) is missing: run `bash scripts/setup.sh` (it makes the keyring venv); these tests never skip")
        }
    }

    /// The worker's one JSON line.
    static func report(_ output: String) throws -> [String: String] {
        let line = try #require(output.split(separator: "\n").last, "no output")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String], "\(line)")
    }

    /// Every `secret` in a cache document's text.
    static func secrets(inDocument text: String) throws -> [String] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        var found: [String] = []
        for section in ["AccessToken", "RefreshToken", "IdToken"] {
            for case let entry as [String: Any] in (document[section] as? [String: Any] ?? [:]).values {
                if let secret = entry["secret"] as? String { found.append(secret) }
            }
        }
        return found
    }

    @Test("Sign-in stores the cache in the keyring; a second process gets a silent hit; no token byte lands in any file")
    func signInThenSilentInAnotherProcess() async throws {
        let session = try await SecretServiceSession()
        defer { session.stop() }
        let emulator = try MSALEmulator(configuration: .sample)
        _ = try await emulator.start()
        do {
            let authority = emulator.authorityURL(tenant: "organizations").absoluteString
            let client = MSALEmulator.Configuration.sampleStandaloneClientID
            let signal = session.home.appendingPathComponent(".cache/msal/token_cache.signal").path
            let signIn = try await session.run(
                StressWorker.executable.path, ["secret-sign-in", authority, client, "secret:\(signal)", "adele@contoso.example"])
            #expect(signIn.status == 0, "\(signIn.errors)")
            let first = try Self.report(signIn.output)
            #expect(first["source"] == "identity_provider")
            #expect(first["storage"]?.hasPrefix("secret-service (schema \"\(try Self.schema(signal))\"") == true, "\(first)")

            let silent = try await session.run(StressWorker.executable.path, ["secret-silent", authority, client, "secret:\(signal)"])
            #expect(silent.status == 0, "\(silent.errors)")
            let second = try Self.report(silent.output)
            #expect(second["source"] == "cache")
            #expect(second["access_token"] == first["access_token"])

            // The item holds the whole document: the access, refresh and ID tokens.
            let item = try #require(try await session.lookup(schema: try Self.schema(signal)), "no item in the keyring")
            let secrets = try Self.secrets(inDocument: item)
            #expect(secrets.count >= 3)
            #expect(secrets.contains(try #require(first["access_token"])))
            #expect(try session.filesContaining(secrets + [try #require(first["id_token"])]).isEmpty)
            // The signal file is empty; the keyring's own file exists (encrypted).
            let attributes = try FileManager.default.attributesOfItem(atPath: signal)
            #expect(attributes[.size] as? Int == 0)
            #expect(FileManager.default.fileExists(atPath: session.home.appendingPathComponent(".local/share/keyrings/login.keyring").path))
        } catch {
            try? await emulator.shutdown()
            throw error
        }
        try await emulator.shutdown()
    }

    @Test("MSAL for Python (msal-extensions, libsecret) answers silently with 0 requests from the item swift-msal wrote, and the reverse")
    func pythonInterop() async throws {
        try Self.requirePython()
        let session = try await SecretServiceSession()
        defer { session.stop() }
        let signal = session.home.appendingPathComponent("shared.signal").path

        // swift-msal writes two accounts; MSAL for Python reads them.
        let save = try await session.run(StressWorker.executable.path, ["cache-save", "secret:\(signal)", "2", "swift"])
        #expect(save.status == 0, "\(save.errors)")
        let queries = session.workingDirectory.appendingPathComponent("queries.json")
        try Data(
            #"""
            {"client_id": "stress-client", "authority": "https://login.windows.net/tenant",
             "queries": [{"id": "a", "home_account_id": "swift-1.tenant", "scopes": ["User.Read"]}]}
            """#.utf8
        ).write(to: queries)
        let read = try await session.run(Self.keyringPython, [Self.script, "read", signal, queries.path])
        #expect(read.status == 0, "\(read.errors)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(read.output.utf8)) as? [String: Any], "\(read.output)")
        let result = try #require((answer["results"] as? [[String: Any]])?.first)
        #expect(result["access_token"] as? String == "at-swift-1")
        #expect(result["token_source"] as? String == "cache")
        #expect(answer["token_endpoint_calls"] as? Int == 0)

        // MSAL for Python adds an account; `msal token` (no network) serves its token from the cache,
        // and still sees swift-msal's.
        let add = try await session.run(Self.keyringPython, [Self.script, "add", signal, "1", "python"])
        #expect(add.status == 0, "\(add.output) \(add.errors)")
        let noNetwork = session.workingDirectory.appendingPathComponent("no-network.json")
        try Data(#"{"name":"no-network","description":"Any request fails.","interactions":[]}"#.utf8).write(to: noNetwork)
        for (account, token) in [("python-0.tenant", "at-python-0"), ("swift-0.tenant", "at-swift-0")] {
            let token0 = try await session.run(
                Self.msal,
                [
                    "token", "--client-id", "stress-client", "--authority", "https://login.windows.net/tenant", "--scopes", "User.Read",
                    "--account", account, "--cache-storage", "secret-service", "--signal-file", signal, "--replay", noNetwork.path,
                    "--output", "json",
                ])
            #expect(token0.status == 0, "\(token0.output) \(token0.errors)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(token0.output.utf8)) as? [String: Any], "\(token0.output)")
            #expect(json["access_token"] as? String == token)
            #expect(json["token_source"] as? String == "cache")
        }
    }

    @Test("swift-msal and MSAL for Python processes writing the same item at once lose no update")
    func concurrentWriters() async throws {
        try Self.requirePython()
        let session = try await SecretServiceSession()
        defer { session.stop() }
        let signal = session.home.appendingPathComponent("shared.signal").path
        async let swiftA = session.run(StressWorker.executable.path, ["cache-save", "secret:\(signal)", "12", "swa"])
        async let swiftB = session.run(StressWorker.executable.path, ["cache-save", "secret:\(signal)", "12", "swb"])
        async let python = session.run(Self.keyringPython, [Self.script, "add", signal, "12", "py"])
        let outcomes = try await [swiftA, swiftB, python]
        for outcome in outcomes {
            #expect(outcome.status == 0, "\(outcome.output) \(outcome.errors)")
        }
        let item = try #require(try await session.lookup(schema: try Self.schema(signal)))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(item.utf8)) as? [String: Any])
        let accounts = Set(
            (document["Account"] as? [String: Any] ?? [:]).values.compactMap { ($0 as? [String: Any])?["home_account_id"] as? String })
        let expected = Set(["swa", "swb", "py"].flatMap { tag in (0..<12).map { "\(tag)-\($0).tenant" } })
        #expect(expected.subtracting(accounts).isEmpty, "lost: \(expected.subtracting(accounts).sorted())")
    }

    @Test("No Secret Service on the bus: a typed error by default; memory or the 0600 file only when the app chose it")
    func noSecretService() async throws {
        let session = try await SecretServiceSession(keyring: false)
        defer { session.stop() }
        let signal = session.home.appendingPathComponent("cache.signal").path
        let failing = try await session.run(StressWorker.executable.path, ["cache-save", "secret:\(signal)", "1", "x"])
        #expect(failing.status == 1)
        #expect(failing.errors.hasPrefix("error -48008 "), "\(failing.errors)")
        #expect(!FileManager.default.fileExists(atPath: signal))

        let emulator = try MSALEmulator(configuration: .sample)
        _ = try await emulator.start()
        do {
            let authority = emulator.authorityURL(tenant: "organizations").absoluteString
            let client = MSALEmulator.Configuration.sampleStandaloneClientID
            let memory = try await session.run(
                StressWorker.executable.path, ["secret-sign-in", authority, client, "secret-or-memory:\(signal)", "adele@contoso.example"])
            #expect(memory.status == 0, "\(memory.errors)")
            #expect(try Self.report(memory.output)["storage"] == "memory (fallback: the Secret Service is unavailable)")

            let file = session.home.appendingPathComponent("fallback.json").path
            let toFile = try await session.run(
                StressWorker.executable.path,
                ["secret-sign-in", authority, client, "secret-or-file:\(signal):\(file)", "adele@contoso.example"])
            #expect(toFile.status == 0, "\(toFile.errors)")
            #expect(try Self.report(toFile.output)["storage"] == "file \(file) (fallback: the Secret Service is unavailable)")
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        } catch {
            try? await emulator.shutdown()
            throw error
        }
        try await emulator.shutdown()

        // No bus at all.
        let noBus = try await session.run(
            StressWorker.executable.path, ["cache-save", "secret:\(signal)", "1", "x"],
            environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(session.root.path)/no-such-bus"])
        #expect(noBus.status == 1)
        #expect(noBus.errors.hasPrefix("error -48008 "), "\(noBus.errors)")
    }

    @Test(
        "A stopped session bus or keyring daemon (SIGSTOP): cacheSecretServiceUnavailable within the operation timeout, from the worker and from msal; nothing written",
        arguments: ["bus", "keyring"])
    func stoppedDaemon(_ which: String) async throws {
        let session = try await SecretServiceSession()
        defer { session.stop() }
        let signal = session.home.appendingPathComponent("cache.signal").path
        let save = try await session.run(StressWorker.executable.path, ["cache-save", "secret:\(signal)", "1", "kept"])
        #expect(save.status == 0, "\(save.errors)")
        let before = try await session.lookup(schema: try Self.schema(signal))
        #expect(before != nil)
        let signalBefore = try FileManager.default.attributesOfItem(atPath: signal)[.modificationDate] as? Date

        if which == "bus" { session.pauseBus(true) } else { session.pauseKeyring(true) }
        let started = ContinuousClock.now
        let worker = try await session.run(
            StressWorker.executable.path, ["cache-save", "secret:\(signal)", "1", "new"],
            environment: ["MSAL_STRESS_SECRET_SERVICE_TIMEOUT": "2"], timeout: 60)
        let workerTime = ContinuousClock.now - started
        #expect(worker.status == 1)
        #expect(worker.errors.hasPrefix("error -48008 "), "\(worker.errors)")
        #expect(worker.errors.contains("no answer within 2 s"), "\(worker.errors)")
        #expect(workerTime < .seconds(20), "took \(workerTime)")

        let listing = ContinuousClock.now
        let accounts = try await session.run(
            Self.msal,
            ["accounts", "--cache-storage", "secret-service", "--signal-file", signal, "--secret-service-timeout", "1.5"],
            timeout: 60)
        let listingTime = ContinuousClock.now - listing
        #expect(accounts.status != 0)
        #expect(accounts.errors.contains("no answer within 1.5 s"), "\(accounts.errors)")
        #expect(listingTime < .seconds(20), "took \(listingTime)")

        if which == "bus" { session.pauseBus(false) } else { session.pauseKeyring(false) }
        // Nothing was written: the item and the signal file are as they were, and no file holds a cache.
        #expect(try await session.lookup(schema: try Self.schema(signal)) == before)
        #expect(try FileManager.default.attributesOfItem(atPath: signal)[.modificationDate] as? Date == signalBefore)
        #expect(try session.filesContaining(["at-new-", "rt-new-"]).isEmpty)
        // And the Secret Service works again for the next process.
        let again = try await session.run(StressWorker.executable.path, ["cache-save", "secret:\(signal)", "1", "again"])
        #expect(again.status == 0, "\(again.errors)")
    }

    @Test("msal cache migrate moves a file cache into the keyring and leaves no token byte on disk; cache show names the storage")
    func migrateAndShow() async throws {
        let session = try await SecretServiceSession()
        defer { session.stop() }
        let file = session.home.appendingPathComponent(".cache/msal/token_cache.json").path
        let signal = session.home.appendingPathComponent(".cache/msal/token_cache.signal").path
        let save = try await session.run(StressWorker.executable.path, ["cache-save", file, "2", "m"])
        #expect(save.status == 0, "\(save.errors)")
        let fileText = try String(contentsOfFile: file, encoding: .utf8)
        let secrets = try Self.secrets(inDocument: fileText)
        #expect(secrets.count == 6)

        let migrate = try await session.run(Self.msal, ["cache", "migrate", "--to", "secret-service", "--output", "json"])
        #expect(migrate.status == 0, "\(migrate.output) \(migrate.errors)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(migrate.output.utf8)) as? [String: Any], "\(migrate.output)")
        #expect(report["moved_entries"] as? Int == 9)  // 2 × (access, refresh and ID token, account), one app metadata
        #expect(report["from"] as? String == file)
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(try session.filesContaining(secrets).isEmpty)
        let item = try #require(try await session.lookup(schema: try Self.schema(signal)))
        #expect(Set(try Self.secrets(inDocument: item)) == Set(secrets))

        // Both ways of choosing the storage; cache show says which one answered.
        for (arguments, environment) in [
            (["--cache-storage", "secret-service"], [String: String]()), ([], [CacheStorageVariable.name: "secret-service"]),
        ] {
            let show = try await session.run(Self.msal, ["cache", "show", "--output", "json"] + arguments, environment: environment)
            #expect(show.status == 0, "\(show.errors)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(show.output.utf8)) as? [String: Any], "\(show.output)")
            #expect(
                (json["storage"] as? String)?.hasPrefix("secret-service (schema \"\(try Self.schema(signal))\", signal \(signal))") == true)
            #expect((json["AccessToken"] as? [String: Any])?.count == 2)
        }
        let bogus = try await session.run(Self.msal, ["cache", "show"], environment: [CacheStorageVariable.name: "keychain"])
        #expect(bogus.status != 0)
        #expect(bogus.errors.contains("MSAL_CACHE_STORAGE=keychain is not one of: file, secret-service, memory"), "\(bogus.errors)")

        // Nothing left to move: said so, and the item is untouched.
        let again = try await session.run(Self.msal, ["cache", "migrate", "--to", "secret-service", "--output", "json"])
        #expect(again.status == 0, "\(again.errors)")
        #expect((try JSONSerialization.jsonObject(with: Data(again.output.utf8)) as? [String: Any])?["file_found"] as? Bool == false)
        #expect(try await session.lookup(schema: try Self.schema(signal)) == item)
    }

    @Test("A locked keyring that nothing can unlock: a typed error (never an empty cache), the fallback when chosen, the item kept")
    func lockedKeyring() async throws {
        let session = try await SecretServiceSession()
        defer { session.stop() }
        let signal = session.home.appendingPathComponent("cache.signal").path
        let save = try await session.run(StressWorker.executable.path, ["cache-save", "secret:\(signal)", "1", "kept"])
        #expect(save.status == 0, "\(save.errors)")
        // The daemon again, without the password: the login keyring stays locked, and there is no prompter.
        try await session.killKeyring()
        try await session.startKeyring(unlock: false)
        let locked = try await session.run(StressWorker.executable.path, ["cache-save", "secret:\(signal)", "1", "new"])
        #expect(locked.status == 1)
        #expect(locked.errors.hasPrefix("error -48008 ") && locked.errors.contains("locked"), "\(locked.errors)")
        let fallback = try await session.run(StressWorker.executable.path, ["cache-save", "secret-or-memory:\(signal)", "1", "new"])
        #expect(fallback.status == 0, "\(fallback.errors)")

        try await session.killKeyring()
        try await session.startKeyring()
        let item = try #require(try await session.lookup(schema: try Self.schema(signal)))
        #expect(item.contains("\"at-kept-0\"") && !item.contains("\"at-new-0\""))
    }

    @Test("An item that is not a cache document is set aside as a second item and reported; the cache starts empty")
    func corruptItem() async throws {
        let session = try await SecretServiceSession()
        defer { session.stop() }
        let signal = session.home.appendingPathComponent("cache.signal").path
        let schema = try Self.schema(signal)
        try await session.store(schema: schema, text: "not a cache document")
        let first = try await session.run(StressWorker.executable.path, ["cache-save", "secret:\(signal)", "1", "x"])
        #expect(first.status == 1)
        #expect(first.errors.hasPrefix("error -48001 "), "\(first.errors)")
        let aside = try await session.run("/usr/bin/secret-tool", ["search", "--all", "--unlock", "xdg:schema", schema + ".corrupt"])
        #expect(aside.output.contains("secret = not a cache document"), "\(aside.output) \(aside.errors)")
        #expect(try await session.lookup(schema: schema) == nil)

        let second = try await session.run(StressWorker.executable.path, ["cache-save", "secret:\(signal)", "1", "x"])
        #expect(second.status == 0, "\(second.errors)")
        let item = try #require(try await session.lookup(schema: schema))
        #expect(item.contains("\"at-x-0\""))
    }

    @Test(
        "A proof key beside a Secret Service cache is a keyring item of its own: the next process gets the same key, and no key file is written"
    )
    func proofKeyInTheKeyring() async throws {
        let session = try await SecretServiceSession()
        defer { session.stop() }
        let signal = session.home.appendingPathComponent("cache.signal").path
        let schema = try Self.schema(signal)
        let first = try await session.run(StressWorker.executable.path, ["proof-key", "secret:\(signal)", "shr"])
        #expect(first.status == 0, "\(first.errors)")
        let thumbprint = first.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(thumbprint.utf8.count == 43)
        let second = try await session.run(StressWorker.executable.path, ["proof-key", "secret:\(signal)", "shr"])
        #expect(second.output.trimmingCharacters(in: .whitespacesAndNewlines) == thumbprint, "\(second.errors)")
        let item = try await session.run(
            "/usr/bin/secret-tool", ["search", "--all", "--unlock", "xdg:schema", schema + ".proof-key", "proof_key", "shr"])
        #expect(item.output.contains("BEGIN PRIVATE KEY"), "\(item.errors)")
        let files = try FileManager.default.contentsOfDirectory(atPath: session.home.path)
        #expect(!files.contains { $0.contains("key.pem") }, "\(files)")
        // Each kind has its own item.
        let dpop = try await session.run(StressWorker.executable.path, ["proof-key", "secret:\(signal)", "dpop"])
        #expect(dpop.status == 0 && dpop.output.trimmingCharacters(in: .whitespacesAndNewlines) != thumbprint, "\(dpop.errors)")
    }

    @Test("A signal file that holds data (a plaintext cache) is refused, left as it is")
    func signalFileWithData() async throws {
        let session = try await SecretServiceSession()
        defer { session.stop() }
        let signal = session.home.appendingPathComponent("token_cache.json").path
        try Data(#"{"AccessToken":{}}"#.utf8).write(to: URL(fileURLWithPath: signal))
        let run = try await session.run(StressWorker.executable.path, ["cache-save", "secret:\(signal)", "1", "x"])
        #expect(run.status == 1)
        #expect(run.errors.hasPrefix("error -48003 "), "\(run.errors)")
        #expect(run.errors.contains("msal cache migrate"))
        #expect(try String(contentsOfFile: signal, encoding: .utf8) == #"{"AccessToken":{}}"#)
    }

    @Test(
        "The session bus killed while a process writes: the process ends with cacheSecretServiceUnavailable, not a signal (GDBus's shared connection exits on close)"
    )
    func busKilledMidWrite() async throws {
        let session = try await SecretServiceSession()
        defer { session.stop() }
        let signal = session.home.appendingPathComponent("cache.signal").path
        let writer = Task {
            try await session.run(StressWorker.executable.path, ["cache-save", "secret:\(signal)", "300", "b", "20"], timeout: 120)
        }
        try await Task.sleep(for: .milliseconds(1500))
        await session.killBus()
        let outcome = try await writer.value
        #expect(outcome.status == 1)
        #expect(outcome.errors.hasPrefix("error -48008 "), "ended by the error it printed, not by a signal: \(outcome.errors)")
    }

    @Test("The keyring daemon killed while a process writes: typed errors, and the item stays a whole cache document")
    func daemonKilledMidWrite() async throws {
        let session = try await SecretServiceSession()
        defer { session.stop() }
        let signal = session.home.appendingPathComponent("cache.signal").path
        let writer = Task { try await session.run(StressWorker.executable.path, ["cache-save", "secret:\(signal)", "400", "k"]) }
        try await Task.sleep(for: .milliseconds(1500))
        try await session.killKeyring()
        let outcome = try await writer.value
        if outcome.status != 0 {
            #expect(outcome.errors.hasPrefix("error -48008 "), "\(outcome.errors)")
        }
        try await session.startKeyring()
        let item = try #require(try await session.lookup(schema: try Self.schema(signal)), "the item is gone")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(item.utf8)) as? [String: Any], "\(item.prefix(200))")
        let accounts = Set(
            (document["Account"] as? [String: Any] ?? [:]).values.compactMap { ($0 as? [String: Any])?["home_account_id"] as? String })
        // Saves run in order, each on the last stored document: what is there is k-0 … k-(n-1), no gap.
        #expect(!accounts.isEmpty)
        #expect(accounts == Set((0..<accounts.count).map { "k-\($0).tenant" }))
    }
}

/// A cache write of one account, as the stress worker's `cache-save` makes it.
enum CacheModesForTests {
    static func saveOne(_ cache: TokenCache) throws {
        let response = TokenResponse(
            accessToken: "at-fallback", expiresIn: 3600, refreshToken: "rt-fallback",
            idToken: "e30." + Base64URL.encode(Array(#"{"oid":"u","tid":"t","sub":"u"}"#.utf8)) + ".c2ln",
            clientInfo: Base64URL.encode(Array(#"{"uid":"u","utid":"t"}"#.utf8)), scope: "User.Read")
        let context = TokenCacheWriteContext(
            clientID: "c", environment: "login.windows.net", authorityTenant: "t", requestedScopes: ["User.Read"],
            now: Int64(Date().timeIntervalSince1970))
        let entries = try TokenCacheEntries(response: response, context: context)
        try cache.write(clientID: "c") { contents in contents.save(entries, clientID: "c") }
    }
}

/// The CLI's environment variable for the storage.
enum CacheStorageVariable {
    static let name = "MSAL_CACHE_STORAGE"
}

/// Secret Service storage without any daemon: libsecret that cannot be loaded.
@Suite("Secret Service storage: libsecret missing")
struct SecretServiceLibraryMissingTests {
    static func config(_ fallback: MSALSecretServiceStorage.Fallback) -> MSALCacheConfig {
        var settings = MSALSecretServiceStorage(signalFilePath: "/nonexistent-msal-test/cache.signal", fallback: fallback)
        settings.librarySoname = "libsecret-1-missing-for-test.so.0"
        return MSALCacheConfig(storage: .secretService(settings))
    }

    @Test("Default: cacheSecretServiceUnavailable naming libsecret; nothing is written")
    func fails() throws {
        let cache = try TokenCache(config: Self.config(.fail))
        let error = #expect(throws: MSALFailure.self) { try cache.read(clientID: "c") { $0.revision } }
        #expect(error?.internalCode == .cacheSecretServiceUnavailable)
        #expect(error?.message.contains("libsecret could not be loaded") == true)
        #expect(cache.storageDescription == "secret-service (not used yet)")
    }

    @Test("Fallback to memory: the cache works in memory, says so, and logs a warning naming the reason")
    func memory() throws {
        let cache = try TokenCache(config: Self.config(.memory))
        let sink = MSALLogSink(level: .warning, maskingLevel: .settingsMaskAllPII)
        _ = try MSALLogCapture.withSink(sink) { try cache.read(clientID: "c") { $0.revision } }
        #expect(cache.storageDescription == "memory (fallback: the Secret Service is unavailable)")
        #expect(cache.file == nil)
        let warnings = sink.records.filter { $0.level == .warning }
        #expect(warnings.count == 1)
        #expect(warnings.first?.text.contains("falling back to memory only") == true)
        #expect(warnings.first?.text.contains("libsecret could not be loaded") == true)
        // Decided once: a second use logs nothing more.
        _ = try MSALLogCapture.withSink(sink) { try cache.read(clientID: "c") { $0.revision } }
        #expect(sink.records.filter { $0.level == .warning }.count == 1)
    }

    @Test("Fallback to a file: the 0600 file is used, and the warning names it only as PII")
    func file() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-ss-fallback-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("cache.json").path
        let cache = try TokenCache(config: Self.config(.file(path: path)))
        let sink = MSALLogSink(level: .warning, maskingLevel: .settingsMaskAllPII)
        try MSALLogCapture.withSink(sink) { try CacheModesForTests.saveOne(cache) }
        #expect(cache.storageDescription == "file \(path) (fallback: the Secret Service is unavailable)")
        #expect(cache.file?.path == path)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let warning = try #require(sink.records.first { $0.level == .warning })
        #expect(warning.text.contains("falling back to the unencrypted file"))
        #expect(!warning.text.contains(path))
    }

    @Test("The default schema is msal-extensions': SHA-256 of the signal path as given, before ~ is expanded")
    func defaultSchema() throws {
        let store = try SecretServiceStore(settings: MSALSecretServiceStorage(signalFilePath: "~/x.signal"), fileOptions: .init())
        #expect(store.schemaName == Hex.lowercase(try MessageDigest.sha256(Array("~/x.signal".utf8))))
        #expect(store.signal.path.hasSuffix("/x.signal") && !store.signal.path.hasPrefix("~"))
        let named = try SecretServiceStore(
            settings: MSALSecretServiceStorage(signalFilePath: "/tmp/y", schemaName: "msal.cache"), fileOptions: .init())
        #expect(named.schemaName == "msal.cache")
    }
}
