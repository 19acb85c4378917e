// swift-tools-version:6.0
import PackageDescription

/// The reference SDK and its conformance test service (issue 30, docs/conformance/service-protocol.md).
///
/// `GronaReferenceSDK` is an SDK core written from the wire contract alone, on Foundation's URLSession: it does not
/// link grona-mock, so that passing the conformance catalogue says something about the contract, not about code
/// shared with the server. `grona-reference-service` exposes it through the test-service protocol, optionally with
/// one behaviour broken on purpose (`--mutation`), which is how the catalogue proves it can catch a broken SDK.
/// The only C it needs is the system's libcrypto (ES256, SHA-256) and zlib (gzip), each behind a `systemLibrary`.
let package = Package(
    name: "ReferenceSDK",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "GronaReferenceSDK", targets: ["GronaReferenceSDK"]),
        .executable(name: "grona-reference-service", targets: ["grona-reference-service"]),
    ],
    targets: [
        .systemLibrary(
            name: "GronaReferenceCOpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .systemLibrary(
            name: "GronaReferenceCZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        .target(name: "GronaReferenceSDK", dependencies: ["GronaReferenceCOpenSSL", "GronaReferenceCZlib"]),
        /// A small HTTP/1.1 server on POSIX sockets: Foundation has none on Linux. Knows nothing of Grona.
        .target(name: "GronaReferenceHTTP"),
        /// The test-service protocol: clients, commands and their JSON, on top of the SDK and the server.
        .target(name: "GronaReferenceService", dependencies: ["GronaReferenceSDK", "GronaReferenceHTTP"]),
        .executableTarget(name: "grona-reference-service", dependencies: ["GronaReferenceService"]),
        /// The tests sign their own documents and grants with throwaway keys, through the same libcrypto.
        .testTarget(name: "GronaReferenceSDKTests", dependencies: ["GronaReferenceSDK", "GronaReferenceCOpenSSL"]),
        .testTarget(
            name: "GronaReferenceServiceTests",
            dependencies: ["GronaReferenceService", "GronaReferenceHTTP", "GronaReferenceSDK"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
