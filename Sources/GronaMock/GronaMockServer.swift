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
    private let watcher: WorkspaceWatcher
    private let waiters: EventWaiters
    private let pool: BlockingPool
    /// The run-time state shared with other instances on the same database (nothing, alone).
    private let shared: any SharedRuntime
    /// The routes as served, for `exchange`.
    private let router: Router

    private init(
        configuration: GronaMockConfiguration, server: HTTPServer, engine: GronaMockEngine, watcher: WorkspaceWatcher,
        pool: BlockingPool, router: Router
    ) {
        self.engine = engine
        workspaces = engine.registry
        clock = engine.clock
        events = engine.store
        faults = engine.faults
        grants = engine.grants
        viewers = engine.viewers
        waiters = engine.waiters
        shared = engine.shared
        self.configuration = configuration
        self.server = server
        self.watcher = watcher
        self.pool = pool
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
        let clock = ServerClock()
        let storage: any GronaStorage
        do {
            storage = try configuration.storage.open()
        } catch {
            throw StartupError("cannot open the storage \(configuration.storage): \(error)")
        }
        // A backend that several instances share shares the run-time state too; any other runs alone.
        let shared: any SharedRuntime
        do {
            shared = try (storage as? any SharedRuntimeProvider)?.makeSharedRuntime(logger: logger) ?? LocalRuntime()
        } catch {
            throw StartupError("cannot share the run-time state through \(configuration.storage): \(error)")
        }
        let workspaces = WorkspaceRegistry(
            directory: configuration.workspacesDirectory, keys: loadKeys(configuration.keysDirectory, logger),
            revisions: storage, clock: clock, logger: logger, shared: shared, maxClones: configuration.maxClones)
        let events = EngineEvents()
        // Every workspace change goes on the event stream, from the first file loaded on: the kill log must know
        // a campaign killed in a file too.
        workspaces.onChange { events.publish(.workspaceChanged($0)) }
        let kills = ViolationsKillLog()
        let metrics = Metrics()
        let grants = GrantLog()
        let storeReference = WeakLate<EventStore>()
        let waiters = EventWaiters { storeReference.value }
        let feed = LiveFeed(capacity: configuration.live.feedCapacity, byteCapacity: configuration.live.feedBytes)
        listen(
            on: events,
            Listeners(kills: kills, waiters: waiters, feed: feed, metrics: metrics, grants: grants, shared: shared))
        grants.onClear { shared.publish(grantsCleared: $0) }
        workspaces.loadDirectory()
        let store = EventStore(
            storage: storage, maxEvents: configuration.maxEvents, logger: logger, metrics: metrics,
            publish: events.publish)
        storeReference.value = store

        var router = Router(logger: logger)
        // First, so that it runs before any other middleware; it covers routes added after it too.
        if let token = configuration.adminToken { AdminToken.protect(&router, token: token) }
        // The control API reads and scans the database and signs revisions: never on an event loop, so that
        // health and the SDK endpoints stay answerable during a long scan.
        let pool = BlockingPool(threads: max(2, HTTPServer.coreCount))
        router.use(ControlRoutes.blocking, pool.offloading())
        // Injected faults cover the Grona endpoints as a group: a handler cannot forget them.
        let faults = FaultEngine(rules: shared.faultRules, logger: logger)
        faults.onFired { events.publish(.faultFired($0)) }
        router.use(FaultEngine.group, faults.middleware(pool: pool))
        let serverReference = WeakLate<HTTPServer>()
        let viewers = LiveViewers(feed: feed, options: configuration.live)
        let engine = GronaMockEngine(
            registry: workspaces, clock: clock, store: store, faults: faults, grants: grants, kills: kills,
            events: events, waiters: waiters, viewers: viewers, metrics: metrics, shared: shared,
            connections: .init(
                open: { serverReference.value?.openConnections ?? 0 }, max: configuration.http.maxConnections))
        // A clone whose time to live has passed goes as a reset of its workspace would take it: its events, its
        // fault rules and its grants with it (in the change lane, on the file watcher's thread).
        workspaces.onChange { [runs = engine.runs, logger] change in
            guard change.cause == .expired else { return }
            runs.clear(change.workspaceKey) { result in
                if case .failure(let error) = result {
                    logger.warning(
                        "the events of an expired clone were not deleted",
                        [("workspace", change.workspaceKey), ("error", "\(error)")])
                }
            }
        }
        ConfigRoutes.register(on: &router, registry: workspaces, maxAge: configuration.configMaxAge, events: events)
        GrantsRoutes.register(on: &router, registry: workspaces, clock: clock, events: events)
        EventsRoutes.register(on: &router, registry: workspaces, store: store, clock: clock)
        EventInspectionRoutes.register(on: &router, engine: engine, pool: pool)
        FaultRoutes.register(on: &router, engine: engine)
        WorkspaceRoutes.register(on: &router, engine: engine)
        ClockRoutes.register(on: &router, engine: engine)
        ViolationRoutes.register(on: &router, engine: engine)
        ResetRoutes.register(on: &router, engine: engine)
        HealthRoutes.register(on: &router, engine: engine)
        MetricsRoutes.register(on: &router, engine: engine)
        staticFiles?.register(on: &router, at: ControlRoutes.staticFiles)
        LiveRoutes.register(on: &router, engine: engine)
        DashboardRoutes.register(on: &router, tokenRequired: configuration.adminToken != nil)
        // What other instances changed before this one started is applied before it serves.
        shared.start(
            RuntimeReplica(
                apply: { workspaces.applyShared($0) },
                adoptClock: { setting, version in
                    clock.adopt(setting, version: version)
                    let (now, offset, frozen) = clock.snapshot()
                    events.publish(.clockChanged(ClockState(now: now, offsetMilliseconds: offset, frozen: frozen)))
                },
                eventsStored: { waiters.committed($0) }, adoptGrants: { grants.adopt($0) },
                forgetGrants: { grants.forget(workspace: $0) }))
        let server: HTTPServer
        do {
            server = try HTTPServer.start(configuration: configuration.http, router: router, logger: logger) {
                metrics.record($0)
            }
        } catch {
            shared.stop()
            viewers.stop()
            waiters.stop()
            store.stop()
            pool.stop()
            let address = configuration.http.listeners.map { "\(configuration.http.host):\($0.port)" }
            throw StartupError("cannot listen on \(address.joined(separator: " and ")): \(error)")
        }
        serverReference.value = server
        let watcher = WorkspaceWatcher(registry: workspaces, interval: configuration.reloadInterval)
        return GronaMockServer(
            configuration: configuration, server: server, engine: engine, watcher: watcher, pool: pool, router: router)
    }

    /// The signing keys; a missing directory or a bad key is logged, not fatal, so the rest still serves.
    private static func loadKeys(_ directory: String, _ logger: Logger) -> KeyStore {
        do {
            let (keys, problems) = try KeyStore.load(from: directory)
            for problem in problems { logger.error("signing key not loaded", [("problem", problem)]) }
            return keys
        } catch {
            logger.warning("no signing keys loaded", [("reason", "\(error)")])
            return KeyStore(directory: directory, keys: [:])
        }
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
        // A live stream has no end of its own: each ends now, with its last chunk.
        viewers.stop()
        // A violations scan over millions of events must not hold the exit past the shutdown deadline.
        events.interruptReads()
        // Long-polls answer now, with what there is, rather than holding shutdown to its deadline.
        waiters.stop()
    }

    /// Blocks until the server has stopped: requests in flight answered (events committed first), then the
    /// long-polls answered with what there is, then the writer and the file watcher stopped.
    public func wait() {
        server.wait()
        viewers.stop()
        shared.stop()
        pool.stop()
        waiters.stop()
        events.stop()
        watcher.stop()
    }
}

/// Why the server could not start, as a sentence for the person who started it.
public struct StartupError: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
