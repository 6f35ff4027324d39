// swift-tools-version: 6.0
// An app's package that depends on swift-msal as any app would (by path here), so `package`
// symbols of swift-msal are invisible to it: its tests prove that an app can unit-test its own
// code against MSALResult and MSALAccount with the public initialisers alone. scripts/test.sh runs
// it (`swift test --package-path Tests/ExternalPackage`).
import PackageDescription

let package = Package(
    name: "swift-msal-external-app",
    dependencies: [
        .package(name: "swift-msal", path: "../..")
    ],
    targets: [
        .target(name: "NotesApp", dependencies: [.product(name: "MSAL", package: "swift-msal")]),
        .testTarget(name: "NotesAppTests", dependencies: ["NotesApp", .product(name: "MSAL", package: "swift-msal")]),
    ],
    swiftLanguageModes: [.v6]
)
