// swift-tools-version:6.0
import PackageDescription

/// grona-mock: a mock of the Grona platform (signed configuration, signed grants, events ingestion).
///
/// No Swift package dependencies by design: the engine links the system's OpenSSL 3, SQLite 3 and zlib through
/// `systemLibrary` targets, and everything else is the Swift toolchain.
let package = Package(
    name: "grona-mock",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "grona-mock", targets: ["grona-mock"]),
        .library(name: "GronaMock", targets: ["GronaMock"]),
    ],
    targets: [
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        /// epoll and eventfd, which Glibc's module does not export; empty on other systems.
        .systemLibrary(name: "CLinux"),
        .target(
            name: "GronaMock",
            dependencies: ["COpenSSL", "CSQLite", "CZlib", "CLinux"]
        ),
        .executableTarget(
            name: "grona-mock",
            dependencies: ["GronaMock"]
        ),
        .testTarget(
            name: "GronaMockTests",
            // The executable is a dependency so that command-line tests can run the built binary.
            dependencies: ["GronaMock", "grona-mock"],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
