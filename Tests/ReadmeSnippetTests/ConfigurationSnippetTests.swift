import Foundation
import MSAL
import Testing

/// The README's configuration snippets (ConfigurationSnippets.swift), run offline.
@Suite struct ConfigurationSnippetTests {
    @Test func authorityExamplesHaveTheKindsTheREADMENames() throws {
        let authorities = try authorityExamples()
        #expect(authorities.map(\.kind) == [.aad, .aad, .b2c, .ciam, .adfs, .oidc, .b2c])
        #expect(
            authorities.map(\.tenant) == [
                "contoso.onmicrosoft.com", "organizations", "contoso.onmicrosoft.com", "contoso.onmicrosoft.com", "adfs", "",
                "contoso.onmicrosoft.com",
            ])
        #expect(authorities[1].host == "login.microsoftonline.us")
        #expect((authorities[2] as? MSALB2CAuthority)?.policy == "B2C_1_signupsignin")
        #expect(authorities[4] is MSALADFSAuthority)
        #expect((authorities[5] as? MSALOIDCAuthority)?.issuer == "https://accounts.example.com")
        #expect((authorities[6] as? MSALB2CAuthority)?.policy == "B2C_1_edit")
    }

    @Test func aLocalProviderNeedsTheLoopbackOptIn() throws {
        let application = try localProviderApplication(port: 8400)
        let authority = application.configuration.authority
        #expect(authority.url.absoluteString == "http://127.0.0.1:8400/common")
        #expect(application.configuration.knownAuthorities == [authority])
        // Without the option the same URL is refused.
        #expect {
            _ = try MSALAuthority.authority(url: URL(string: "http://127.0.0.1:8400/common")!)
        } throws: { error in
            (error as? MSALFailure)?.internalCode == .invalidAuthority
        }
    }

    @Test func theFileCacheIsWhereTheAppSaysAndNothingIsWrittenUntilUsed() throws {
        let application = try fileCacheApplication()
        guard case .file(let path) = application.configuration.cacheConfig.storage else {
            Issue.record("expected a file cache")
            return
        }
        #expect(path == "/var/lib/my-app/token_cache.json")
        #expect(application.configuration.cacheConfig.fileLockTimeout == 5)
        #expect(!FileManager.default.fileExists(atPath: "/var/lib/my-app/token_cache.json"))
    }

    @Test func theBrokeredApplicationUsesTheSessionBusAndFallsBackToTheBrowser() throws {
        let options = try #require(try brokeredApplication().configuration.linuxBroker)
        #expect(options.busAddress == nil && options.fallsBackToBrowser)
        #expect(options.silentTimeout == 30 && options.interactiveTimeout == 600)
    }

    @Test func theKeyringCacheNamesItsSignalFileAndFailsRatherThanFallingBack() throws {
        let application = try keyringCacheApplication()
        guard case .secretService(let settings) = application.configuration.cacheConfig.storage else {
            Issue.record("expected Secret Service storage")
            return
        }
        #expect(settings.signalFilePath == "~/.cache/my-app/token_cache.signal")
        #expect(settings.fallback == .fail)
        #expect(settings.attributes.isEmpty && settings.label.isEmpty && settings.schemaName == nil)
        // Nothing is touched until the cache is used.
        #expect(!FileManager.default.fileExists(atPath: NSHomeDirectory() + "/.cache/my-app/token_cache.signal"))
    }

    @Test func theVersionedStoreStoresOnlyOverTheVersionItWasReadAt() async throws {
        let store = VersionedPartitionStore()
        #expect(try await store.load(partition: "p") == nil)
        #expect(try await store.store(partition: "p", data: Data("a".utf8), expiresOn: nil, replacing: nil))
        let first = try #require(try await store.load(partition: "p"))
        // A stale writer (it read no partition) loses; the current one wins.
        #expect(try await !store.store(partition: "p", data: Data("b".utf8), expiresOn: nil, replacing: nil))
        #expect(try await store.store(partition: "p", data: Data("c".utf8), expiresOn: nil, replacing: first.version))
        let second = try #require(try await store.load(partition: "p"))
        #expect(second.data == Data("c".utf8) && second.version != first.version)
        // Removed and created again: a version is never reused, so the first reader still loses.
        #expect(try await store.store(partition: "p", data: nil, expiresOn: nil, replacing: second.version))
        #expect(try await store.store(partition: "p", data: Data("d".utf8), expiresOn: nil, replacing: nil))
        #expect(try await !store.store(partition: "p", data: Data("e".utf8), expiresOn: nil, replacing: first.version))
        #expect(try await store.load(partition: "p")?.data == Data("d".utf8))
    }

    @Test func theReadThroughCopyAnswersFromMemoryAndWritesThrough() async throws {
        let authority = try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/contoso.onmicrosoft.com")!)
        let (configuration, copy) = try readThroughConfiguration(clientID: "client", secret: "secret", authority: authority)
        #expect(copy.maximumAge == .seconds(30) && copy.store is VersionedPartitionStore)
        guard case .partitioned(let store) = configuration.cacheConfig.storage else {
            Issue.record("the configuration does not use the partitioned storage")
            return
        }
        #expect(store as? MSALReadThroughTokenCacheStore === copy)
        #expect(try await copy.store(partition: "p", data: Data("a".utf8), expiresOn: nil, replacing: nil))
        let read = try #require(try await copy.load(partition: "p"))
        #expect(try await copy.store(partition: "p", data: Data("b".utf8), expiresOn: nil, replacing: read.version))
        #expect(try await copy.load(partition: "p")?.data == Data("b".utf8), "a store drops the copy")
    }

    @Test func deviceCodeSignInStoresTheCacheInTheAppsStorage() async throws {
        let replay = try SnippetReplay(fixture: "Fixtures/Conformance/Flows/device-code-common-authority.json")
        let storage = AppStorageCacheSerializer()
        let application = try replay.application(cache: MSALCacheConfig(storage: .custom(storage)))

        let result = try await signInWithDeviceCode(application, scopes: ["User.Read"])
        #expect(result.accessToken == "at-device-1")
        #expect(result.tokenSource == .identityProvider)
        #expect(replay.clock.waits == [5])  // one poll interval before the token was issued
        try replay.transport.verifyAllInteractionsUsed()

        // The app's storage now holds the cache document, in the unified format.
        let document = try #require(storage.storedDocument)
        let json = try #require(try JSONSerialization.jsonObject(with: document) as? [String: Any])
        let accessTokens = try #require(json["AccessToken"] as? [String: [String: Any]])
        #expect(accessTokens.values.map { $0["secret"] as? String } == ["at-device-1"])

        // A later run loads it from the storage: the token comes from the cache, with no request.
        let laterStorage = AppStorageCacheSerializer()
        laterStorage.store(document)
        let later = try replay.application(cache: MSALCacheConfig(storage: .custom(laterStorage)))
        let account = try #require(try later.allAccounts().first)
        let requests = replay.transport.sentRequests.count
        let silent = try await later.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        #expect(silent.accessToken == "at-device-1")
        #expect(silent.tokenSource == .cache)
        #expect(replay.transport.sentRequests.count == requests)

        // The README's application takes the same storage.
        let readmeApplication = try customCacheApplication(storage: laterStorage)
        guard case .custom(let serializer) = readmeApplication.configuration.cacheConfig.storage else {
            Issue.record("expected the app's storage")
            return
        }
        #expect(serializer as? AppStorageCacheSerializer === laterStorage)
    }
}
