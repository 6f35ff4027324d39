// README.md, "Install": what an app adds to its Package.swift. It cannot be compiled here
// (PackageDescription exists only inside manifests); ManifestSnippetTests checks it against this
// package's own manifest and MSALVersion instead.

/// The README's manifest excerpt, as written there.
let readmeManifestExcerpt = """
    // Package.swift
    dependencies: [
        .package(url: "https://github.com/swift-msal/swift-msal", from: "0.1.0"),
    ],
    targets: [
        .executableTarget(name: "MyApp", dependencies: [
            .product(name: "MSAL", package: "swift-msal"),
        ]),
    ],
    """
