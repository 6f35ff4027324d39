// swift-tools-version: 6.1
// Benchmarks for swift-msal, kept in their own package so that the benchmark
// harness and the comparison library (jwt-kit) never become dependencies of
// the SDK itself. Run from this folder:
//
//     swift package --disable-sandbox benchmark
//
// See README.md here and docs/performance.md at the repository root.
import PackageDescription

let package = Package(
    name: "swift-msal-benchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        // The SDK under test.
        // TestEntryPoints: the @_spi(Benchmarks) cache entry points, compiled only with this trait.
        .package(name: "swift-msal", path: "..", traits: ["TestEntryPoints"]),
        // The harness. Its malloc interposer provides the allocation metrics.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        // Comparison only: a widely used Swift JWT library (swift-crypto/BoringSSL underneath).
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        // The PostgreSQL client the PostgresCache benchmark gives MSALPostgresTokenCache (and its baseline SELECT).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
    ],
    targets: [
        // The system OpenSSL 3, for the bare EVP_DigestVerify baseline only. The
        // SDK has its own (internal) COpenSSL module; this one is deliberately
        // separate so the baseline does not reach into the SDK.
        .systemLibrary(
            name: "CBaselineOpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // Fixtures, the OpenSSL baseline and the jwt-kit payload, shared by the
        // benchmark and by the profiling loop.
        .target(
            name: "JOSEBenchmarkSupport",
            dependencies: [
                .product(name: "MSALJOSE", package: "swift-msal"),
                .product(name: "MSAL", package: "swift-msal"),
                .product(name: "JWTKit", package: "jwt-kit"),
                "CBaselineOpenSSL",
            ]
        ),
        .executableTarget(
            name: "JOSEVerification",
            dependencies: [
                "JOSEBenchmarkSupport",
                .product(name: "MSALJOSE", package: "swift-msal"),
                .product(name: "MSAL", package: "swift-msal"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            path: "Benchmarks/JOSEVerification",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        // The token cache on the documents of scripts/make_cache_documents.py.
        .executableTarget(
            name: "TokenCache",
            dependencies: [
                .product(name: "MSAL", package: "swift-msal"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/TokenCache",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        // acquireTokenSilent cache hits through the public async API, on the same documents.
        .executableTarget(
            name: "SilentAcquisition",
            dependencies: [
                .product(name: "MSAL", package: "swift-msal"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/SilentAcquisition",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        // The in-memory identity provider the app-token benchmarks fill their caches from.
        .target(
            name: "AppTokenBenchmarkSupport",
            dependencies: [
                .product(name: "MSAL", package: "swift-msal")
            ]
        ),
        // acquireTokenForClient cache hits through the public async API, 1 and 1,000 tenants.
        .executableTarget(
            name: "AppTokenAcquisition",
            dependencies: [
                "AppTokenBenchmarkSupport",
                .product(name: "MSAL", package: "swift-msal"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/AppTokenAcquisition",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        // acquireTokenForClient with the token cache in PostgreSQL, against a bare SELECT of one
        // row; run through scripts/postgres_bench.sh, which starts the cluster.
        .executableTarget(
            name: "PostgresCache",
            dependencies: [
                "AppTokenBenchmarkSupport",
                .product(name: "MSAL", package: "swift-msal"),
                .product(name: "MSALPostgresTokenCache", package: "swift-msal"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/PostgresCache",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        // Load against the local identity provider (MSALEmulator) over loopback: concurrent forced
        // refreshes, single-flight under contention, and raw-POST baselines.
        .executableTarget(
            name: "ProviderLoad",
            dependencies: [
                .product(name: "MSAL", package: "swift-msal"),
                .product(name: "MSALURLSession", package: "swift-msal"),
                .product(name: "MSALEmulator", package: "swift-msal"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/ProviderLoad",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        // A bare loop over one token-cache operation, for callgrind or perf.
        .executableTarget(
            name: "CacheProfile",
            dependencies: [
                "AppTokenBenchmarkSupport",
                .product(name: "MSAL", package: "swift-msal"),
            ]
        ),
        // A bare loop over one case, to run under valgrind --tool=callgrind or perf.
        .executableTarget(
            name: "JOSEProfile",
            dependencies: [
                "JOSEBenchmarkSupport",
                .product(name: "MSALJOSE", package: "swift-msal"),
                .product(name: "MSAL", package: "swift-msal"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
