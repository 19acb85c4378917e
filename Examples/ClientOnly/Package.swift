// swift-tools-version:6.0
import PackageDescription

/// A package that depends on `GronaMockClient` alone, as an iOS SDK's test helper or a script would: it links
/// no OpenSSL, SQLite or libpq, and talks to a grona-mock that runs beside it (.ci/client-only).
let package = Package(
    name: "ClientOnly",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "grona-mock", path: "../..")],
    targets: [
        .executableTarget(
            name: "client-only",
            dependencies: [.product(name: "GronaMockClient", package: "grona-mock")]
        )
    ],
    swiftLanguageModes: [.v6]
)
