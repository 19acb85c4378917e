import GronaHTTP
import GronaJSON

/// Everything `grona-mock serve` can be told, with the defaults a fresh checkout runs with.
public struct GronaMockConfiguration: Sendable {
    /// Socket, loops, timeouts and limits of the HTTP server.
    public var http: HTTPServer.Configuration
    /// Workspace source files, `<workspaceKey>.json` (contract §3).
    public var workspacesDirectory: String
    /// Signing keys, `<kid>.pem` (contract §2).
    public var keysDirectory: String
    /// The SQLite file events are stored in; `:memory:` keeps them in memory only.
    public var databasePath: String
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

    public init(
        http: HTTPServer.Configuration = HTTPServer.Configuration(), workspacesDirectory: String = "workspaces",
        keysDirectory: String = "keys", databasePath: String = "grona-mock.sqlite", staticDirectory: String? = nil,
        configMaxAge: Int = 60, reloadInterval: Duration = .milliseconds(500), maxEvents: Int? = nil
    ) {
        self.http = http
        self.workspacesDirectory = workspacesDirectory
        self.keysDirectory = keysDirectory
        self.databasePath = databasePath
        self.staticDirectory = staticDirectory
        self.configMaxAge = configMaxAge
        self.reloadInterval = reloadInterval
        self.maxEvents = maxEvents
    }
}
