// swift-tools-version:6.0
import PackageDescription

/// grona-mock: a mock of the Grona platform (signed configuration, signed grants, events ingestion).
///
/// No Swift package dependencies by design: the engine links the system's OpenSSL 3, SQLite 3 and zlib through
/// `systemLibrary` targets, and everything else is the Swift toolchain.
let package = Package(
    name: "grona-mock",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "grona-mock", targets: ["grona-mock"]),
        .library(name: "GronaMock", targets: ["GronaMock"]),
        .library(name: "GronaMockSQLite", targets: ["GronaMockSQLite"]),
        .library(name: "GronaMockPostgres", targets: ["GronaMockPostgres"]),
        /// What an SDK's test target depends on: start a mock in process, typed and async.
        .library(name: "GronaMockTesting", targets: ["GronaMockTesting"]),
        /// A client for a running grona-mock's control API, Foundation only: for tests that cannot link the
        /// engine (an iOS simulator's, scripts). Its target depends on nothing of this package.
        .library(name: "GronaMockClient", targets: ["GronaMockClient"]),
    ],
    targets: [
        .systemLibrary(
            name: "GronaMockCOpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .systemLibrary(
            name: "GronaMockCSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        /// libpq, PostgreSQL's client library, for the PostgreSQL backend only.
        .systemLibrary(
            name: "GronaMockCPostgres",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        .systemLibrary(
            name: "GronaMockCZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        /// epoll and eventfd, which Glibc's module does not export; empty on other systems. The C modules carry the
        /// project's prefix so that they cannot clash with an SDK test target's own when the test kit is linked in.
        .systemLibrary(name: "GronaMockCLinux"),
        /// Atomic loads, stores and adds on one 64-bit word through the compiler's builtins: the engine's
        /// Atomic, on macOS 13 as on Linux (Synchronization's needs macOS 15).
        .target(name: "GronaMockCAtomics"),
        /// JSON as RFC 8259 has it: a strict parser with limits, a value type, a writer. No dependencies.
        .target(name: "GronaMockJSON"),
        /// What every other target stands on: locks and atomics, the monotonic clock, files, logging, threads and
        /// the blocking pool, the poller (epoll or poll(2)) and sockets, client and server, with their errors. It
        /// knows nothing of HTTP or Grona (swift-nio splits NIOConcurrencyHelpers and NIOPosix off NIOCore alike).
        .target(
            name: "GronaMockPlatform",
            dependencies: ["GronaMockJSON", "GronaMockCLinux", "GronaMockCAtomics"]
        ),
        /// The HTTP/1.1 server core: event loops, the parser, connections, the router with route groups and
        /// middleware, responses. It knows nothing of Grona, and is tested alone with toy routes.
        .target(
            name: "GronaMockHTTP",
            dependencies: ["GronaMockJSON", "GronaMockPlatform", "GronaMockCLinux"]
        ),
        /// The engine: workspaces, signing, configuration, grants, events, faults, clock, violations and the
        /// control API, on top of the HTTP core. It defines the storage protocol (`GronaStorage`) and links no
        /// database.
        .target(
            name: "GronaMock",
            dependencies: [
                "GronaMockJSON", "GronaMockPlatform", "GronaMockHTTP", "GronaMockCOpenSSL", "GronaMockCZlib",
            ],
            // The dashboard's HTML, CSS and JavaScript are compiled in by the plugin, not copied as resources.
            exclude: ["Dashboard/Assets"],
            plugins: ["EmbedDashboardAssets"]
        ),
        /// Writes the dashboard's files as one Swift file of string literals, for the plugin below.
        .executableTarget(name: "grona-mock-embed-assets", path: "Sources/GronaMockEmbedAssets"),
        /// Embeds `Sources/GronaMock/Dashboard/Assets` in the engine at build time: one binary serves them.
        .plugin(
            name: "EmbedDashboardAssets", capability: .buildTool(), dependencies: ["grona-mock-embed-assets"],
            path: "Sources/GronaMockDashboardPlugin"
        ),
        /// The TLS both sides share, below the HTTP core: one `SSL` on a non-blocking socket (`TLSSession`), its
        /// errors, and the verifying client context of `grona-mock load`'s HTTPS targets (system trust store or a
        /// CA file, SNI, host-name check). With GronaMockTLS, the only targets that call libssl.
        .target(
            name: "GronaMockTLSCore",
            dependencies: ["GronaMockPlatform", "GronaMockCOpenSSL"]
        ),
        /// HTTPS for the HTTP core: a `ConnectionTransport` over OpenSSL (TLS 1.2 and 1.3, ECDHE, ALPN
        /// `http/1.1`) and the local certificate authority of `grona-mock tls`, on GronaMockTLSCore's session.
        .target(
            name: "GronaMockTLS",
            dependencies: ["GronaMockPlatform", "GronaMockHTTP", "GronaMockCOpenSSL", "GronaMockTLSCore"]
        ),
        /// `GronaStorage` on SQLite: one writer, a pool of readers (WAL). The only target that sees SQLite.
        .target(
            name: "GronaMockSQLite",
            dependencies: ["GronaMock", "GronaMockJSON", "GronaMockPlatform", "GronaMockCSQLite"]
        ),
        /// `GronaStorage` on PostgreSQL through libpq: one writer, a pool of readers, for several instances on one
        /// shared database. The only target that sees libpq.
        .target(
            name: "GronaMockPostgres",
            dependencies: ["GronaMock", "GronaMockJSON", "GronaMockPlatform", "GronaMockCPostgres"]
        ),
        /// The test kit: the engine in an SDK's test process, with the committed workspaces and test keys
        /// bundled (copies of `workspaces/` and `keys/`; a test keeps them identical).
        .target(
            name: "GronaMockTesting",
            dependencies: [
                "GronaMock", "GronaMockSQLite", "GronaMockPlatform", "GronaMockHTTP", "GronaMockJSON", "GronaMockTLS",
                "GronaMockTLSCore", "GronaMockClient",
            ],
            resources: [.copy("Resources/workspaces"), .copy("Resources/keys")]
        ),
        /// `grona-mock load`: a simulated SDK fleet for load tests of any service that speaks the contract, with
        /// an open-model schedule, HDR latency histograms, thresholds and a check of what was stored.
        .target(
            name: "GronaMockLoad",
            dependencies: ["GronaMock", "GronaMockPlatform", "GronaMockJSON", "GronaMockTLSCore"]
        ),
        /// `grona-mock conformance`: grades an SDK through its test service (docs/conformance.md): scenarios as
        /// data, a runner on the engine's API and event stream, the built-in catalogue compiled in, JUnit and JSON
        /// reports. It takes a running engine and its URL, and reuses the load generator's response parser for
        /// its client to the service, so it needs no HTTP server core of its own.
        .target(
            name: "GronaMockConformance",
            dependencies: ["GronaMock", "GronaMockJSON", "GronaMockPlatform", "GronaMockLoad"],
            // The scenarios are compiled in by the plugin, not copied as resources.
            exclude: ["Catalogue"],
            plugins: ["EmbedDashboardAssets"]
        ),
        /// The command line: parses options, opens the storage, calls the engine.
        .executableTarget(
            name: "grona-mock",
            dependencies: [
                "GronaMock", "GronaMockSQLite", "GronaMockPostgres", "GronaMockLoad", "GronaMockTLS",
                "GronaMockTLSCore", "GronaMockPlatform", "GronaMockConformance",
                "GronaMockHTTP", "GronaMockJSON",
            ]
        ),
        /// What the test targets share: a raw TCP client and live-server helpers. Not a product.
        .target(
            name: "GronaMockTestSupport",
            dependencies: ["GronaMockPlatform", "GronaMockHTTP", "GronaMockTLS"],
            path: "Tests/GronaMockTestSupport"
        ),
        /// The platform alone: the pollers, the portable locks, the clock's conversions, throttled warnings.
        .testTarget(
            name: "GronaMockPlatformTests",
            dependencies: ["GronaMockPlatform", "GronaMockTestSupport"]
        ),
        /// The HTTP core alone, with toy routes and no engine.
        .testTarget(
            name: "GronaMockHTTPTests",
            dependencies: [
                "GronaMockPlatform", "GronaMockHTTP", "GronaMockTestSupport", "GronaMockJSON",
            ],
            resources: [.copy("Fixtures")]
        ),
        /// The checks every storage backend passes, run by each backend's test target. Not a product.
        .target(
            name: "GronaMockStorageConformance",
            dependencies: ["GronaMock"],
            path: "Tests/GronaMockStorageConformance"
        ),
        .testTarget(
            name: "GronaMockLoadTests",
            // The engine and SQLite start a grona-mock in the process for short runs of the fleet against it.
            dependencies: [
                "GronaMockLoad", "GronaMock", "GronaMockSQLite", "GronaMockTestSupport", "GronaMockHTTP",
                "GronaMockJSON", "GronaMockPlatform", "GronaMockTLS", "GronaMockTLSCore",
            ]
        ),
        /// HTTPS: the TLS transport under the HTTP core and the engine, checked with curl, Python's ssl and
        /// openssl s_client; the local CA; `grona-mock tls` and `serve --tls-port`.
        .testTarget(
            name: "GronaMockTLSTests",
            dependencies: [
                "GronaMockTLS", "GronaMockHTTP", "GronaMock", "GronaMockSQLite", "GronaMockTestSupport", "grona-mock",
                "GronaMockJSON", "GronaMockPlatform",
            ]
        ),
        .target(name: "GronaMockClient"),
        .testTarget(
            name: "GronaMockClientTests",
            dependencies: ["GronaMockClient", "GronaMockTesting"]
        ),
        .testTarget(
            name: "GronaMockTestingTests",
            dependencies: ["GronaMockTesting", "GronaMockTestSupport"]
        ),
        .testTarget(
            name: "GronaMockSQLiteTests",
            dependencies: [
                "GronaMockSQLite", "GronaMockStorageConformance", "GronaMockTestSupport", "GronaMock",
            ]
        ),
        /// The conformance suite and PostgreSQL's own cases, on a throwaway cluster the tests start themselves
        /// (`Examples/cluster/pg-throwaway`) unless `GRONA_MOCK_TEST_POSTGRES` names one; and the cluster tests, which
        /// run the built binary as two instances on one database.
        .testTarget(
            name: "GronaMockPostgresTests",
            dependencies: [
                "GronaMock", "GronaMockPostgres", "GronaMockStorageConformance", "GronaMockTestSupport", "grona-mock",
                "GronaMockHTTP", "GronaMockJSON", "GronaMockPlatform",
            ]
        ),
        /// The conformance runner: scenario files refused with their path and line, filters, reports, and the
        /// runner against scripted test services built on the HTTP core, one correct and one not. The executable
        /// is a dependency so that command-line tests can run the built binary.
        .testTarget(
            name: "GronaMockConformanceTests",
            dependencies: [
                "GronaMockConformance", "GronaMock", "GronaMockSQLite", "GronaMockHTTP", "GronaMockJSON",
                "GronaMockPlatform", "GronaMockTestSupport", "grona-mock", "GronaMockClient",
            ]
        ),
        .testTarget(
            name: "GronaMockTests",
            // The executable is a dependency so that command-line tests can run the built binary.
            dependencies: [
                "GronaMock", "GronaMockSQLite", "grona-mock", "GronaMockTestSupport", "GronaMockHTTP", "GronaMockJSON",
                "GronaMockPlatform",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
