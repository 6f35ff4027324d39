// swift-tools-version: 6.1
// libFuzzer targets for swift-msal, kept in their own package so that fuzzing flags never touch a
// normal build of the SDK; the `@_spi(Fuzzing)` entry points are compiled only with the package
// trait `TestEntryPoints`, which this package's dependency on swift-msal enables. Build and run through
// scripts/fuzz.sh at the repository root (see docs/reliability.md, "Fuzzing"):
//
//     scripts/fuzz.sh FuzzJWS 60      # one target for 60 s
//     scripts/fuzz.sh all 30          # every target for 30 s each
//
// Each executable target defines `LLVMFuzzerTestOneInput`; libFuzzer supplies `main`.
import PackageDescription

// One libFuzzer executable per input surface.
let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
    ("FuzzJWS", [.product(name: "MSALJOSE", package: "swift-msal")]),
    ("FuzzJWKS", [.product(name: "MSALJOSE", package: "swift-msal")]),
    ("FuzzJSON", [.product(name: "MSALJOSE", package: "swift-msal")]),
    ("FuzzAuthorityMetadata", [.product(name: "MSAL", package: "swift-msal")]),
    ("FuzzAuthorityURL", [.product(name: "MSAL", package: "swift-msal")]),
    ("FuzzTokenResponse", [.product(name: "MSAL", package: "swift-msal")]),
    ("FuzzDPoP", [.product(name: "MSAL", package: "swift-msal"), .product(name: "MSALJOSE", package: "swift-msal")]),
    (
        "FuzzCacheDocument",
        [.product(name: "MSAL", package: "swift-msal"), .product(name: "MSALJOSE", package: "swift-msal")]
    ),
    (
        "FuzzLoopbackRequest",
        [
            .product(name: "MSAL", package: "swift-msal"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
        ]
    ),
]

let package = Package(
    name: "swift-msal-fuzzing",
    dependencies: [
        // The SDK under test.
        .package(name: "swift-msal", path: "..", traits: ["TestEntryPoints"]),
        // Already a dependency of the SDK; the loopback target also needs its EmbeddedChannel.
        .package(url: "https://github.com/apple/swift-nio", from: "2.65.0"),
    ],
    targets: [
        // The invariant check and input helpers every target shares.
        .target(name: "FuzzCheck")
    ]
        + fuzzTargets.map { target in
            .executableTarget(name: target.name, dependencies: ["FuzzCheck"] + target.dependencies)
        },
    swiftLanguageModes: [.v6]
)
