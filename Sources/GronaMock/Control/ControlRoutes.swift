import GronaMockHTTP
import GronaMockJSON

/// The route groups of the engine, each declared once: what protection, limits and offloading apply to is
/// decided here, never by the order in which routes are registered.
enum ControlRoutes {
    /// The `/_mock` control API: behind the admin token, and run off the event loops. The health routes
    /// stay outside it, since orchestrators probe them without credentials and they must answer at once.
    static let group = RouteGroup.prefix("/_mock/", except: HealthRoutes.patterns)

    /// Where the files of `--static` are served: behind the admin token, as the rest of `/_mock`.
    static let staticFiles = "/_mock/static/{name}"

    /// The part of the control API that may block (SQLite reads and scans, signing, file I/O): it runs on
    /// the blocking pool. Static files are served from memory, so they stay on the loop.
    static let blocking = RouteGroup.prefix("/_mock/", except: HealthRoutes.patterns.union([staticFiles]))
}
