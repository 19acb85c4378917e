import Foundation

/// The reference SDK client: one per app install, driven by the app's screens (visits, renders, anchors,
/// actions) and by its own timers on an injected clock.
///
/// Every public method returns when the work it caused has settled: the requests it started were answered (or
/// failed) and the answers were acted on (service protocol, "Time"). There is no background work: the SDK's
/// clock moves only in `advanceTime`, which runs the timers that fall due in time order, each at its own time.
/// Calls are expected one at a time (the service serialises them per client); the actor keeps the state safe
/// if they are not.
public actor GronaClient {
    let options: SDKOptions
    let transport: any Transport
    let grantsSource: (any GrantsSource)?
    let verifier: ConfigurationVerifier
    let grantVerifier: GrantVerifier
    var mutation: Mutation? { options.mutation }

    /// The SDK clock (Unix epoch ms). Moves only in `advanceTime`.
    public private(set) var nowMs: Int64
    var store: ConfigurationStore
    var delivery: DeliveryMachine
    var grants: GrantBook
    var visit: Visit?
    /// The SDK clock at the last configuration request (made or, offline, skipped): polling counts from it.
    var lastConfigurationRequestMs: Int64
    let sessionID = "s-" + UUID().uuidString.lowercased()
    var visitCounter = 0
    var isClosed = false

    /// Creates a client and brings it up as `POST /clients` promises: the bundled configuration is loaded, the
    /// first configuration request has settled, and with a customer the first grants request too.
    public static func start(
        options: SDKOptions, transport: any Transport, grantsSource: (any GrantsSource)?
    ) async -> GronaClient {
        let client = GronaClient(options: options, transport: transport, grantsSource: grantsSource)
        await client.bringUp()
        return client
    }

    private init(options: SDKOptions, transport: any Transport, grantsSource: (any GrantsSource)?) {
        self.options = options
        self.transport = transport
        self.grantsSource = grantsSource
        verifier = ConfigurationVerifier(
            keys: options.configKeys, workspaceKey: options.workspaceKey, mutation: options.mutation)
        grantVerifier = GrantVerifier(
            keys: options.grantKeys, workspaceKey: options.workspaceKey, mutation: options.mutation)
        nowMs = options.startMs
        store = ConfigurationStore(mutation: options.mutation)
        delivery = DeliveryMachine(
            settings: DeliveryMachine.Settings(
                maxBatchSize: options.events.maxBatchSize, maxAgeMs: options.events.maxAgeMs,
                maxQueued: options.events.maxQueued),
            mutation: options.mutation)
        grants = GrantBook(customerID: options.customerID)
        lastConfigurationRequestMs = options.startMs
    }

    private func bringUp() async {
        loadBundledConfiguration()
        await fetchConfiguration()
        if let customerID = grants.customerID { await fetchGrants(for: customerID) }
    }

    // MARK: - Status and lifecycle

    public struct Status: Sendable {
        public var revision: Int64?
        public var source: ConfigurationStore.Source?
        public var queuedEvents: Int
        public var customerID: String?
        public var online: Bool
    }

    public func status() -> Status {
        Status(
            revision: store.current?.configuration.revision, source: store.current?.source,
            queuedEvents: delivery.pendingCount, customerID: grants.customerID, online: delivery.isOnline)
    }

    /// Stops the client: its timers stop and nothing more is sent. Queued events are given up.
    public func close() {
        isClosed = true
        visit = nil
    }

    // MARK: - Time

    /// The timers of the SDK, in the order they run when due at the same time.
    enum Timer: CaseIterable {
        case delivery, configurationPoll, grantRefresh
    }

    /// Moves the SDK clock by `ms`, running every timer that falls due on the way, in time order, with the clock
    /// at the timer's time (so a retry's `sentAt` is its own time, not the end of the advance).
    public func advanceTime(by ms: Int64) async {
        guard !isClosed else { return }
        let target = nowMs + max(0, ms)
        // Each timer moves its own due time forward when it runs; the bound only guards against a bug.
        for _ in 0..<100_000 {
            guard let (timer, due) = nextTimer(), due <= target else { break }
            nowMs = max(nowMs, due)
            await run(timer)
        }
        nowMs = target
    }

    func nextTimer() -> (Timer, Int64)? {
        var next: (Timer, Int64)?
        for timer in Timer.allCases {
            guard let due = dueTime(of: timer) else { continue }
            if next.map({ due < $0.1 }) ?? true { next = (timer, due) }
        }
        return next
    }

    private func dueTime(of timer: Timer) -> Int64? {
        switch timer {
        case .delivery: delivery.nextDeadlineMs
        case .configurationPoll:
            mutation == .noPolling ? nil : lastConfigurationRequestMs + max(1, options.pollIntervalMs)
        case .grantRefresh:
            mutation == .noGrantRefresh ? nil : grants.refreshDueMs()
        }
    }

    private func run(_ timer: Timer) async {
        switch timer {
        case .delivery: await perform(delivery.timerFired(nowMs: nowMs))
        case .configurationPoll: await fetchConfiguration()
        case .grantRefresh:
            grants.dropExpired(atMs: nowMs)
            if let customerID = grants.customerID { await fetchGrants(for: customerID) }
        }
    }

    // MARK: - App lifecycle and network

    /// The app went to the background: the SDK sends what it has.
    public func background() async {
        await flush()
    }

    /// The app came back: the SDK asks for the configuration.
    public func foreground() async {
        await fetchConfiguration()
    }

    /// The device lost or regained its network. Offline the SDK sends nothing and keeps its events; back
    /// online it delivers the backlog once.
    public func setNetwork(online: Bool) async {
        guard !isClosed, online != delivery.isOnline else { return }
        let action = delivery.networkChanged(online: online, nowMs: nowMs)
        guard online else { return }
        await perform(action, thenFlush: true)
        if grants.lastFetchFailed, let customerID = grants.customerID { await fetchGrants(for: customerID) }
    }
}
