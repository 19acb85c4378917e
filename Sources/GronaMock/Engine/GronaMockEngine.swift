import GronaMockJSON
import GronaMockPlatform

/// The engine's operations, in domain types: what the `/_mock` control routes, `grona-mock exec`, the test
/// kit and conformance scenarios call. Each control route is an adapter that parses its request, calls one
/// method here and encodes the result (a test checks it calls exactly one); nothing here takes or returns an
/// HTTP type.
///
/// The operations, by file: workspaces (`+Workspaces`), events, waits and violations (`+Events`), faults and
/// the clock (`+Faults`), health, metrics and the live feed (`+Health`), conformance runs (`+Conformance`). What happens as they run is
/// published on `events`, the engine's event stream.
package final class GronaMockEngine: Sendable {
    /// The served workspaces.
    package let registry: WorkspaceRegistry
    package let clock: ServerClock
    /// Received events.
    package let store: EventStore
    package let faults: FaultEngine
    /// The grants handed out, for the SDK contract checks.
    package let grants: GrantLog
    /// When each campaign was killed and revived, from the workspace changes on the event stream.
    let kills: ViolationsKillLog
    /// The event stream.
    package let events: EngineEvents
    let waiters: EventWaiters
    let viewers: LiveViewers
    let metrics: Metrics
    /// What a test run leaves behind on a shared server besides its workspace: cleared with it.
    let runs: RunState
    /// The run-time state shared with the other instances on the same database (nothing, alone).
    let shared: any SharedRuntime
    /// The HTTP server's open connections and their limit, for health and the metrics (none until a server
    /// carries the engine: `attach`).
    private let carrier = Mutex(Connections(open: { 0 }, max: 0))
    /// Reloads workspace files as they change, and removes expired clones.
    let watcher: WorkspaceWatcher
    /// The next violations page of a client following the pages, checked while it reads the last.
    let pagesAhead: ViolationPagesAhead

    var connections: Connections { carrier.withLock { $0 } }

    /// What the engine reads of the server that carries it.
    package struct Connections: Sendable {
        package var open: @Sendable () -> Int
        package var max: Int

        package init(open: @escaping @Sendable () -> Int, max: Int) {
            self.open = open
            self.max = max
        }
    }

    /// Told the name of every operation called, for the test that each control route calls exactly one.
    private let observer = Mutex<CallObserver?>(nil)
    /// The report of the last conformance run on this engine (`grona-mock conformance`), as it stands.
    let conformance = Mutex<JSONValue?>(nil)

    private struct CallObserver: Sendable {
        let called: @Sendable (String) -> Void
    }

    init(
        registry: WorkspaceRegistry, clock: ServerClock, store: EventStore, faults: FaultEngine, grants: GrantLog,
        kills: ViolationsKillLog, events: EngineEvents, waiters: EventWaiters, viewers: LiveViewers, metrics: Metrics,
        shared: any SharedRuntime, pagesAhead: ViolationPagesAhead = ViolationPagesAhead(), watcher: WorkspaceWatcher
    ) {
        self.registry = registry
        self.clock = clock
        self.store = store
        self.faults = faults
        self.grants = grants
        self.kills = kills
        self.events = events
        self.waiters = waiters
        self.viewers = viewers
        self.metrics = metrics
        self.shared = shared
        self.watcher = watcher
        self.pagesAhead = pagesAhead
        runs = RunState(events: store, faults: faults, grants: grants)
    }

    /// Tells the engine how many connections the server carrying it has open, and its limit.
    package func attach(_ connections: Connections) {
        carrier.withLock { $0 = connections }
    }

    /// Hears the name of each operation as it is called (nil stops). For tests only: an operation calls no
    /// other, so a route that calls one is heard once.
    package func observeCalls(_ called: (@Sendable (String) -> Void)?) {
        observer.withLock { $0 = called.map(CallObserver.init) }
    }

    /// Every operation starts here.
    func called(_ operation: String = #function) {
        observer.withLock { $0 }?.called(operation)
    }
}
