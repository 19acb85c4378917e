import GronaMockHTTP

/// Everything `grona-mock serve` can be told, with the defaults a fresh checkout runs with.
public struct GronaMockConfiguration: Sendable {
    /// Socket, loops, timeouts and limits of the HTTP server.
    public var http: HTTPServer.Configuration
    /// Workspace source files, `<workspaceKey>.json` (contract §3).
    public var workspacesDirectory: String
    /// Signing keys, `<kid>.pem` (contract §2).
    public var keysDirectory: String
    /// Where events and revisions are kept: `.sqlite(path:)` from `GronaMockSQLite` (`:memory:` keeps them in
    /// memory only), or another `GronaStorage` backend. Opened at start, after the directories are checked.
    public var storage: Storage
    /// Files served read-only under `/_mock/static/<name>` (image assets for app tests, benchmark bodies).
    public var staticDirectory: String?
    /// `Cache-Control: max-age` of the configuration and JWKS, in seconds (contract §4).
    public var configMaxAge: Int
    /// How often workspace and key files are checked for changes.
    public var reloadInterval: Duration
    /// Keep at most this many events, dropping the oldest; nil keeps them all.
    public var maxEvents: Int?
    /// When set, `/_mock` routes other than health need it as `Authorization: Bearer <token>`.
    public var adminToken: String?
    /// The dashboard's live stream of events: how much it keeps, how many may watch, how often it beats.
    public var live = Live()
    /// The most clones served at once (each takes its signed configuration's memory, about 30 KB for the
    /// committed acme-market: docs/workspaces.md); a clone past it is refused with 409 `too_many_clones`.
    public var maxClones = GronaMockConfiguration.defaultMaxClones
    /// Event batches of at least this many bytes of JSON (after gunzip) are decoded, parsed and validated on
    /// a pool of their own instead of the event loop that read them; nil keeps every batch on its loop.
    public var eventsOffloadBytes: Int? = GronaMockConfiguration.defaultEventsOffloadBytes

    /// `maxClones` unless told otherwise.
    public static let defaultMaxClones = 10_000

    /// `eventsOffloadBytes` unless told otherwise: 64 KiB, above an SDK's usual batch (50 events, about
    /// 12 KiB), which a hop to the pool would only delay. Measured with bench/events-offload.sh: with large
    /// batches (500 events near 512 KiB, gzipped) beside small ones, the small ones' p99 was about 0.7x of what
    /// it was with every batch on its loop (bench/README.md).
    public static let defaultEventsOffloadBytes = 64 * 1024

    public init(
        http: HTTPServer.Configuration = HTTPServer.Configuration(), workspacesDirectory: String = "workspaces",
        keysDirectory: String = "keys", storage: Storage, staticDirectory: String? = nil,
        configMaxAge: Int = 60, reloadInterval: Duration = .milliseconds(500), maxEvents: Int? = nil
    ) {
        self.http = http
        self.workspacesDirectory = workspacesDirectory
        self.keysDirectory = keysDirectory
        self.storage = storage
        self.staticDirectory = staticDirectory
        self.configMaxAge = configMaxAge
        self.reloadInterval = reloadInterval
        self.maxEvents = maxEvents
    }
}

extension GronaMockConfiguration {
    /// How to open the storage backend, and what to call it in messages.
    public struct Storage: Sendable, CustomStringConvertible {
        /// Where it lives, with no secret in it (a path, or a URL without its password).
        public let description: String
        let open: @Sendable () throws(StorageError) -> any GronaStorage

        public init(description: String, open: @escaping @Sendable () throws(StorageError) -> any GronaStorage) {
            self.description = description
            self.open = open
        }

        /// A backend opened by the caller, for a test that wants to look at it too.
        public static func opened(_ storage: any GronaStorage) -> Storage {
            Storage(description: storage.location) { storage }
        }
    }
}
