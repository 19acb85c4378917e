import GronaMockHTTP

/// The route groups of the engine, each declared once: what protection, limits and offloading apply to is
/// decided here, never by the order in which routes are registered.
enum ControlRoutes {
    /// The `/_mock` routes anyone may ask: the health routes, which orchestrators probe without credentials,
    /// and the dashboard's page and assets, which hold no data and must load to ask for the token.
    static let publicPatterns = HealthRoutes.patterns.union(DashboardRoutes.patterns)

    /// The `/_mock` control API: behind the admin token, and run off the event loops.
    static let group = RouteGroup.prefix("/_mock/", except: publicPatterns)

    /// Where the files of `--static` are served: behind the admin token, as the rest of `/_mock`.
    static let staticFiles = "/_mock/static/{name}"

    /// The part of the control API that may block (SQLite reads and scans, signing, file I/O): it runs on
    /// the blocking pool. Static files and the dashboard's assets are served from memory, so they stay on the
    /// loop; the live stream of events is made on a thread of its own (`LiveViewers`), and would hold a pool
    /// thread for as long as a viewer watches.
    static let blocking = RouteGroup.prefix(
        "/_mock/", except: publicPatterns.union([staticFiles, LiveRoutes.pattern]))
}
