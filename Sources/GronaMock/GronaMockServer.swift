import GronaMockHTTP
import GronaMockPlatform

/// The grona-mock engine: the Grona endpoints and the `/_mock` API on one HTTP server.
///
/// The `grona-mock` executable is a thin shell over this; tests start it in-process on port 0.
public final class GronaMockServer: Sendable {
    public let configuration: GronaMockConfiguration
    /// The served workspaces and their signed configurations.
    package let workspaces: WorkspaceRegistry
    package let clock: ServerClock
    /// Received events.
    package let events: EventStore
    /// Injected faults.
    package let faults: FaultEngine
    /// The grants handed out, for the SDK contract checks.
    package let grants: GrantLog
    /// The dashboard's live viewers of events.
    package let viewers: LiveViewers
    /// The engine's operations and its event stream: what the control routes, `exec` and the test kit call.
    package let engine: GronaMockEngine
    private let server: HTTPServer
    private let pool: BlockingPool
    /// Where large event batches are decoded, when they leave the loops.
    private let offload: EventsOffload?
    /// The routes as served, for `exchange`.
    private let router: Router

    private init(
        configuration: GronaMockConfiguration, server: HTTPServer, engine: GronaMockEngine, pool: BlockingPool,
        offload: EventsOffload?, router: Router
    ) {
        self.engine = engine
        workspaces = engine.registry
        clock = engine.clock
        events = engine.store
        faults = engine.faults
        grants = engine.grants
        viewers = engine.viewers
        self.configuration = configuration
        self.server = server
        self.pool = pool
        self.offload = offload
        self.router = router
    }

    /// Loads what the configuration names, binds and starts serving; returns once the socket is bound.
    public static func start(
        _ configuration: GronaMockConfiguration, logger: Logger = Logger()
    ) throws(StartupError) -> GronaMockServer {
        if let token = configuration.adminToken, let problem = AdminToken.problem(with: token) {
            throw StartupError("--admin-token: \(problem)")
        }
        for (option, directory) in [
            ("--workspaces", configuration.workspacesDirectory), ("--keys", configuration.keysDirectory),
        ]
        where !FileSystem.isDirectory(directory) {
            throw StartupError("\(option) \(directory) is not a directory (run from the repository root, or name it)")
        }
        // Read before any thread starts, so a bad directory stops start-up with nothing left running.
        let staticFiles: StaticFiles?
        do {
            staticFiles = try configuration.staticDirectory.map(StaticFiles.load(from:))
        } catch {
            throw StartupError("cannot load the static directory: \(error)")
        }
        for name in staticFiles?.outside ?? [] {
            logger.warning("static file not served: it resolves outside --static", [("name", name)])
        }
        let engine = try GronaMockEngine.start(configuration, logger: logger)
        var router = Router(logger: logger)
        // First, so that it runs before any other middleware; it covers routes added after it too.
        if let token = configuration.adminToken { AdminToken.protect(&router, token: token) }
        // The control API reads and scans the database and signs revisions: never on an event loop, so that
        // health and the SDK endpoints stay answerable during a long scan.
        let pool = BlockingPool(threads: max(2, HTTPServer.coreCount))
        router.use(ControlRoutes.blocking, pool.offloading())
        // The requests to the Grona endpoints go on the event stream when a subscriber wants them; outside the
        // fault middleware, so that what a fault answers is heard too.
        router.use(FaultEngine.group, TrafficRecording.middleware(events: engine.events, clock: engine.clock))
        // Injected faults cover the Grona endpoints as a group: a handler cannot forget them.
        router.use(FaultEngine.group, engine.faults.middleware(pool: pool))
        let serverReference = WeakLate<HTTPServer>()
        engine.attach(
            GronaMockEngine.Connections(
                open: { serverReference.value?.openConnections ?? 0 }, max: configuration.http.maxConnections))
        ConfigRoutes.register(
            on: &router, registry: engine.registry, maxAge: configuration.configMaxAge, events: engine.events)
        GrantsRoutes.register(on: &router, registry: engine.registry, clock: engine.clock, events: engine.events)
        let offload = configuration.eventsOffloadBytes.map { threshold in
            EventsOffload(threshold: threshold, pool: BlockingPool(threads: HTTPServer.coreCount, name: "grona-batch"))
        }
        EventsRoutes.register(
            on: &router, registry: engine.registry, store: engine.store, clock: engine.clock, offload: offload)
        EventInspectionRoutes.register(on: &router, engine: engine, pool: pool)
        FaultRoutes.register(on: &router, engine: engine)
        WorkspaceRoutes.register(on: &router, engine: engine)
        ClockRoutes.register(on: &router, engine: engine)
        ViolationRoutes.register(on: &router, engine: engine, pool: pool)
        ResetRoutes.register(on: &router, engine: engine)
        HealthRoutes.register(on: &router, engine: engine)
        MetricsRoutes.register(on: &router, engine: engine)
        ConformanceRoutes.register(on: &router, engine: engine)
        staticFiles?.register(on: &router, at: ControlRoutes.staticFiles)
        LiveRoutes.register(on: &router, engine: engine)
        DashboardRoutes.register(on: &router, tokenRequired: configuration.adminToken != nil)
        let server: HTTPServer
        do {
            server = try HTTPServer.start(configuration: configuration.http, router: router, logger: logger) {
                [metrics = engine.metrics] in metrics.record($0)
            }
        } catch {
            engine.shutdown()
            engine.stop()
            pool.stop()
            offload?.pool.stop()
            let address = configuration.http.listeners.map { "\(configuration.http.host):\($0.port)" }
            throw StartupError("cannot listen on \(address.joined(separator: " and ")): \(error)")
        }
        serverReference.value = server
        return GronaMockServer(
            configuration: configuration, server: server, engine: engine, pool: pool, offload: offload, router: router)
    }

    /// Every route served, in registration order: for tests that walk the table and for documentation checks.
    public var routes: [(method: HTTPMethod, pattern: String)] { server.routes }

    /// Answers one request given in its wire form without a socket, through the same routes, middleware and
    /// limits: for tests that put a table of requests to one engine. nil when no answer came in time.
    package func exchange(_ request: String) -> HTTPResponse? {
        router.exchange(Array(request.utf8), limits: configuration.http.parserLimits)
    }

    /// The same, answered asynchronously: no thread is held while the handler works or a long-poll waits.
    /// `bypassingFaults`: the fault rules do not see the request (neither fire nor count it), for a test's own
    /// checks, which must not use up the faults meant for the SDK under test.
    package func exchange(_ request: String, bypassingFaults: Bool = false) async -> HTTPResponse {
        var attachments = HTTPRequest.Attachments()
        if bypassingFaults { attachments[FaultEngine.Bypass.self] = FaultEngine.Bypass() }
        return await withCheckedContinuation { continuation in
            router.exchange(Array(request.utf8), limits: configuration.http.parserLimits, attachments: attachments) {
                continuation.resume(returning: $0)
            }
        }
    }

    /// The base URL, with the real port.
    public var url: String { server.url }
    /// Every listener's base URL (plain HTTP, HTTPS), the first being `url`.
    public var urls: [String] { server.listeners.map(\.url) }
    public var port: Int { server.port }

    /// Begins a graceful shutdown: no new connections, requests in flight answered. Returns at once.
    public func shutdown() {
        server.shutdown()
        engine.shutdown()
    }

    /// Blocks until the server has stopped: requests in flight answered (events committed first), then the
    /// long-polls answered with what there is, then the writer and the file watcher stopped.
    public func wait() {
        server.wait()
        pool.stop()
        offload?.pool.stop()
        engine.stop()
    }
}

/// Why the server could not start, as a sentence for the person who started it.
public struct StartupError: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
