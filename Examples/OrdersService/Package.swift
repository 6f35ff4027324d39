// swift-tools-version: 6.1
// An example service protected by swift-msal: a Hummingbird 2 API with one route that requires a
// scope, validates the caller's access token, and calls a downstream API on behalf of the caller,
// its token cache in PostgreSQL. A package of its own, depending on swift-msal as an app does, so
// that swift-msal itself never depends on Hummingbird. README.md ("Examples") runs it against
// `msal emulator` and a local PostgreSQL.
import PackageDescription

let package = Package(
    name: "orders-service",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "swift-msal", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.20.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
    ],
    targets: [
        .executableTarget(
            name: "OrdersService",
            dependencies: [
                .product(name: "MSAL", package: "swift-msal"),
                .product(name: "MSALAsyncHTTPClient", package: "swift-msal"),
                .product(name: "MSALPostgresTokenCache", package: "swift-msal"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
