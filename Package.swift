// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "swift-msal",
    products: [
        .library(name: "MSAL", targets: ["MSAL"]),
        .library(name: "MSALJOSE", targets: ["MSALJOSE"]),
        // Opt-in: MSALURLSessionTransport, on corelibs Foundation's URLSession, which traps the process on
        // a chunked response with a trailer (docs/networking.md). The MSAL product does not include it.
        .library(name: "MSALURLSession", targets: ["MSALURLSession"]),
        .library(name: "MSALTesting", targets: ["MSALTesting"]),
        .library(name: "MSALEmulator", targets: ["MSALEmulator"]),
        .executable(name: "msal", targets: ["MSALCommandLine"]),
    ],
    traits: [
        // Off in every normal build: only FuzzTesting/ and Benchmarks/ enable it, in their own
        // dependency on this package (SwiftNIO's ENABLE_MOCKING is the model).
        .trait(
            name: "TestEntryPoints",
            description: "Compiles the @_spi(Fuzzing) and @_spi(Benchmarks) entry points that the fuzz targets and the benchmarks call."
        )
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.65.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // libcurl, the default HTTP transport (docs/networking.md says why it is called directly):
        // its header only. The library is not linked but loaded by the first request (LibCurl), so
        // a process that never sends one never maps it.
        .systemLibrary(
            name: "CCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // Package-internal support shared by every module: the lock (`Mutex`, ThreadSanitizer-visible
        // in `-DMSAL_TSAN` builds), the continuation shadows, the one-shot and single-flight
        // primitives, and the hex and percent codecs. Not a product; nothing in it is public.
        .target(name: "MSALSupport"),
        // The one JSON reader and writer: the scanner that JOSE, the protocol responses and the
        // token cache's schema mapping all drive, the parsed document, the writers. Not a product.
        .target(
            name: "MSALJSON",
            dependencies: ["MSALSupport"]
        ),
        // D-Bus through libdbus, loaded at run time (docs/broker.md): a private bus connection with
        // blocking calls under a timeout, and a service that owns a name and answers method calls.
        // For the broker client and the local provider's broker double. Not a product.
        .target(
            name: "MSALDBus",
            dependencies: ["MSALSupport"]
        ),
        .target(
            name: "MSALJOSE",
            dependencies: ["COpenSSL", "MSALJSON", "MSALSupport"],
            swiftSettings: [.define("MSAL_TEST_ENTRY_POINTS", .when(traits: ["TestEntryPoints"]))]
        ),
        .target(
            name: "MSAL",
            dependencies: [
                "MSALDBus",
                "MSALJOSE",
                "MSALJSON",
                "MSALSupport",
                "CCurl",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: [.define("MSAL_TEST_ENTRY_POINTS", .when(traits: ["TestEntryPoints"]))]
        ),
        .target(
            name: "MSALURLSession",
            dependencies: ["MSAL", "MSALJOSE", "MSALSupport"]
        ),
        .target(
            name: "MSALTesting",
            dependencies: [
                "MSAL", "MSALJOSE", "MSALJSON", "MSALSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .target(
            name: "MSALEmulator",
            dependencies: [
                "MSALDBus",
                "MSALJOSE",
                "MSALJSON",
                "MSALSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "MSALCommandLine",
            dependencies: [
                "MSAL",
                "MSALJOSE",
                "MSALJSON",
                "MSALSupport",
                "MSALTesting",
                "MSALEmulator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "MSALStressWorker",
            dependencies: ["MSAL", "MSALEmulator", "MSALSupport"]
        ),
        .testTarget(
            name: "MSALSupportTests",
            dependencies: ["MSALSupport"]
        ),
        .testTarget(
            name: "MSALJSONTests",
            dependencies: ["MSALJSON", "MSALSupport"]
        ),
        // The Linux broker: the D-Bus layer, the local provider's broker double, and both against
        // Microsoft's broker runtime (pymsalruntime) and GLib's D-Bus, on private buses.
        .testTarget(
            name: "MSALBrokerTests",
            dependencies: ["MSAL", "MSALCommandLine", "MSALDBus", "MSALEmulator", "MSALJOSE", "MSALJSON", "MSALSupport"]
        ),
        .testTarget(
            name: "MSALJOSETests",
            dependencies: ["MSALJOSE", "MSALJSON", "MSALSupport"]
        ),
        .testTarget(
            name: "MSALTests",
            dependencies: [
                "MSAL",
                "MSALURLSession",
                "MSALJOSE",
                "MSALJSON",
                "MSALSupport",
                "MSALTesting",
                "MSALStressWorker",
                "MSALEmulator",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The MSAL-for-iOS tutorial's auth code, compiled as app code is written: Swift 5 mode.
        .testTarget(
            name: "TutorialTests",
            dependencies: [
                "MSAL", "MSALJOSE", "MSALSupport", "MSALTesting",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // MSAL for iOS app code of our own, written as iOS apps write it and compiled as they
        // compile it (Swift 5 mode, public API only): the compatibility promise of issue 38, run
        // offline against a cache file, a stub identity platform and the local identity provider.
        .testTarget(
            name: "IOSCompatibilityTests",
            dependencies: ["MSAL", "MSALEmulator"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // The Swift code of README.md and the DocC articles, compiled in Swift 6 mode and run offline.
        .testTarget(
            name: "ReadmeSnippetTests",
            dependencies: [
                "MSAL", "MSALJOSE", "MSALSupport", "MSALTesting",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "MSALEmulatorTests",
            dependencies: [
                "MSAL", "MSALJOSE", "MSALJSON", "MSALSupport", "MSALEmulator", "MSALStressWorker",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The msal command run as a process, and the provider tests: the command and the library
        // against real OpenID providers (Tests/Interop/providers).
        .testTarget(
            name: "MSALCommandLineTests",
            dependencies: ["MSALCommandLine", "MSAL", "MSALJOSE", "MSALSupport", "MSALStressWorker", "MSALEmulator"]
        ),
        // An app's own code and its tests, compiled as outside swift-msal: without package access
        // (no -package-name), `package` symbols are invisible to them as to any app's package. The
        // tests prove that an app can unit-test its own code against MSALResult and MSALAccount
        // with the public initialisers alone. They are in no product.
        .target(
            name: "NotesApp",
            dependencies: ["MSAL"],
            path: "Tests/ExternalApp/NotesApp",
            packageAccess: false
        ),
        .testTarget(
            name: "NotesAppTests",
            dependencies: ["NotesApp", "MSAL"],
            path: "Tests/ExternalApp/NotesAppTests",
            packageAccess: false
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The server-side products (issue 23): `MSALAsyncHTTPClient`, a transport over swift-server's
// AsyncHTTPClient for services that run one (swift-nio-ssl, already in its graph, is named for its
// TLS error types; docs/networking.md says why these dependencies), and `MSALPostgresTokenCache`
// (docs/distributed-cache.md). An app that does not use a product never builds its dependencies.
// MSAL_CORE_ONLY=1 leaves them out: scripts/sanitize.sh thread and scripts/fuzz.sh set it, as
// instrumenting BoringSSL, HTTP/2, AsyncHTTPClient and postgres-nio would add minutes to every CI
// run for adapters whose state is the core's (`TransportExchange`, the partitioned cache), which
// runs there under the other transports and an in-memory store.
if Context.environment["MSAL_CORE_ONLY"] != "1" {
    package.dependencies += [
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
    ]
    package.products.append(.library(name: "MSALAsyncHTTPClient", targets: ["MSALAsyncHTTPClient"]))
    package.targets.append(
        .target(
            name: "MSALAsyncHTTPClient",
            dependencies: [
                "MSAL", "MSALJOSE", "MSALSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        )
    )
    // The transport suites run against it as against the other transports.
    for target in package.targets where target.name == "MSALTests" {
        target.dependencies.append("MSALAsyncHTTPClient")
    }

    // `MSALPostgresTokenCache`: the token cache of a service's replicas in PostgreSQL through
    // postgres-nio (docs/distributed-cache.md says why this dependency). Its worker runs the
    // replicas of its tests as processes of their own.
    package.dependencies.append(.package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"))
    package.products.append(.library(name: "MSALPostgresTokenCache", targets: ["MSALPostgresTokenCache"]))
    package.targets += [
        .target(
            name: "MSALPostgresTokenCache",
            dependencies: [
                "MSAL", "MSALJOSE", "MSALSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "MSALPostgresWorker",
            dependencies: [
                "MSAL", "MSALPostgresTokenCache", "MSALSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "MSALPostgresTokenCacheTests",
            dependencies: [
                "MSAL", "MSALJOSE", "MSALSupport", "MSALEmulator", "MSALPostgresTokenCache", "MSALPostgresWorker",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
    ]
}

// The example service of Examples/OrdersService, compiled in this package's build when
// MSAL_EXAMPLES=1 (scripts/test.sh sets it): its own package is how an app builds it, but building
// that package in CI would compile SwiftNIO, AsyncHTTPClient, postgres-nio and swift-msal a second
// time. Here Hummingbird is the only addition, and an app depending on swift-msal never resolves it.
if Context.environment["MSAL_EXAMPLES"] == "1" && Context.environment["MSAL_CORE_ONLY"] != "1" {
    package.dependencies += [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.20.0")
    ]
    package.targets.append(
        .executableTarget(
            name: "OrdersService",
            dependencies: [
                "MSAL", "MSALAsyncHTTPClient", "MSALPostgresTokenCache",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Examples/OrdersService/Sources/OrdersService"
        )
    )
}

// AddressSanitizer for this package's own targets only, in the normal scratch path: set by
// scripts/sanitize.sh address (and only there). The dependencies keep the plain build's flags, so
// their objects are reused instead of rebuilt instrumented; AddressSanitizer needs no
// instrumentation in code it does not check (it replaces malloc for the whole process). Read from
// the environment, not a trait, so that a package depending on swift-msal never sees unsafe flags.
if Context.environment["MSAL_ADDRESS_SANITIZER_OWN_TARGETS"] == "1" {
    for target in package.targets where target.type != .system {
        // Line tables only: reports still name each frame's function, file and line.
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-sanitize=address", "-gline-tables-only"])]
        target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(["-sanitize=address"])]
    }
}
