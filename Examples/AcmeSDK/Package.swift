// swift-tools-version:6.0
import PackageDescription

/// An SDK-shaped package, as a Grona SDK team's would be, whose tests use grona-mock's `GronaMockTesting`.
///
/// On purpose it has what an SDK commonly has and what clashed with grona-mock before its modules were
/// prefixed: its own `CZlib` C module and its own `Logger`, `Workspace`, `Campaign` and `CertificateAuthority`
/// types. Nothing is renamed to make room for the test kit.
let package = Package(
    name: "AcmeSDK",
    platforms: [.macOS(.v13)],
    products: [.library(name: "AcmeSDK", targets: ["AcmeSDK"])],
    dependencies: [.package(name: "grona-mock", path: "../..")],
    targets: [
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .target(name: "AcmeSDK", dependencies: ["CZlib"]),
        .testTarget(
            name: "AcmeSDKTests",
            dependencies: ["AcmeSDK", .product(name: "GronaMockTesting", package: "grona-mock")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
