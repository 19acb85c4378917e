import GronaMock
import GronaMockHTTP

/// Why a run could not be made at all (exit status 1).
package struct LoadRunError: Error, Sendable, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// What a run leaves for the report and for `--verify`.
package struct LoadRunResult: Sendable {
    package var statistics: LoadStatistics
    package var elapsedSeconds: Double
    package var acknowledged: AcknowledgedEvents
    /// The run's events the server acknowledged as rejected (kept with their reason, not stored as events).
    package var rejectedEvents: RejectedEvents
    /// Events each install logged (its next counter): no stored event of the run can have a higher one.
    package var loggedPerInstall: [UInt32]
    package var runTag: String
    package var seed: UInt64
}

/// The simulated fleet on one thread: one poll loop drives the open-model visit schedule, every install's
/// batches, retries, configuration polls and grants, and the HTTP client. Visits start when the schedule says,
/// whatever the answers; a visit due while `--max-in-flight` requests are out is dropped and counted.
package final class FleetRunner {
    enum Timer: Sendable {
        case batchAge(Int)
        case retry(Int)
        case configPoll(Int)
        case offlineStart(Int)
        case offlineEnd(Int)
    }

    let settings: LoadSettings
    let client: HTTPClient
    let encoder: EventEncoder
    /// The retries' jitter, apart from the visits: how many retries a run makes depends on the service, and
    /// must not change which visits the seed gives.
    var jitter: SplitMix64
    var installs: [InstallState]
    var statistics = LoadStatistics()
    var acknowledged: AcknowledgedEvents
    var rejectedEvents = RejectedEvents()
    var timers = TimerQueue<Timer>()
    var configs: ConfigStore
    let retryPolicy: RetryPolicy
    let simulator: VisitSimulator
    let monotonicStart: UInt64
    let wallStart: Int64
    var scheduling = true
    var pendingEventsTotal = 0
    var batchesOutstanding = 0
    /// The envelope being built, reused for every batch.
    var envelope: [UInt8] = []
    var progress: ((LoadProgress) -> Void)?
    /// The latencies of the attempts that ended since the last progress snapshot, for the progress line's
    /// p50/p99 of the last second (the run's histograms cannot be subtracted).
    var intervalLatency = LatencyHistogram()

    /// Fetches the JWKS and the configuration, and verifies it: a run that cannot do that is not made.
    package init(settings: LoadSettings) throws(LoadRunError) {
        self.settings = settings
        try DescriptorBudget.ensure(connections: settings.maxInFlight)
        do {
            client = try HTTPClient(
                HTTPClient.Configuration(
                    host: settings.host, port: settings.port, maxConnections: settings.maxInFlight,
                    timeout: settings.timeout))
        } catch {
            throw LoadRunError("cannot start the client: \(error)")
        }
        encoder = EventEncoder(runTag: settings.runTag)
        var random = SplitMix64(seed: settings.seed)
        jitter = SplitMix64(seed: Self.derivedSeed(settings.seed, stream: 1, index: 0))
        acknowledged = AcknowledgedEvents(installs: settings.installs)
        retryPolicy = RetryPolicy(maxRetries: settings.maxRetries, base: settings.retryBase)
        simulator = VisitSimulator(
            encoder: encoder, catalogue: .standard, offersEnabled: settings.secretKey != nil)
        installs = []
        installs.reserveCapacity(settings.installs)
        for index in 0..<settings.installs {
            var install = InstallState()
            if random.chance(settings.identified) { install.customerID = "cust-\(settings.runTag)-\(index)" }
            installs.append(install)
        }
        let keys = try Self.fetchKeys(client, settings)
        configs = ConfigStore(keys: keys, workspace: settings.workspace)
        try Self.fetchFirstConfig(client, settings, into: &configs, statistics: &statistics)
        monotonicStart = MonotonicClock.now()
        wallStart = WallClock.milliseconds()
    }

    /// Runs the schedule, then flushes and waits for the answers (at most `drainLimit`).
    package func run() -> LoadRunResult {
        var visits = VisitClock(schedule: settings.schedule, start: monotonicStart)
        let end = MonotonicClock.deadline(from: monotonicStart, after: settings.duration)
        var drainDeadline = UInt64.max
        var nextProgress = monotonicStart &+ 1_000_000_000
        while true {
            var now = MonotonicClock.now()
            while scheduling, let intended = visits.nextVisit(now: now) {
                statistics.visitsScheduled += 1
                if client.inFlight >= settings.maxInFlight {
                    statistics.visitsDropped += 1
                } else {
                    statistics.visitsStarted += 1
                    visit(number: visits.issued, at: intended, now: now)
                }
            }
            while let timer = timers.popDue(now: now) { fire(timer.payload, deadline: timer.deadline, now: now) }
            if scheduling && now >= end {
                scheduling = false
                drainDeadline = MonotonicClock.deadline(from: now, after: settings.drainLimit)
                flushAll(now: now)
            }
            if !scheduling && (isDrained || now >= drainDeadline) { break }
            if now >= nextProgress {
                progress?(
                    LoadProgress(
                        statistics: statistics, elapsedSeconds: Double(now &- monotonicStart) / 1e9,
                        inFlight: client.inFlight, intervalLatency: intervalLatency))
                intervalLatency = LatencyHistogram()
                nextProgress &+= 1_000_000_000
            }
            now = MonotonicClock.now()
            var wake = min(nextProgress, scheduling ? min(end, visits.nextDueTime ?? end) : drainDeadline)
            if let timer = timers.nextDeadline { wake = min(wake, timer) }
            let waitMilliseconds = wake > now ? min((wake - now) / 1_000_000, 50) : 0
            client.poll(timeoutMilliseconds: Int32(waitMilliseconds)) { completion in
                handle(completion)
            }
        }
        statistics.eventsUnsent = pendingEventsTotal + installs.reduce(0) { $0 + ($1.batch?.count ?? 0) }
        return LoadRunResult(
            statistics: statistics, elapsedSeconds: Double(MonotonicClock.now() &- monotonicStart) / 1e9,
            acknowledged: acknowledged, rejectedEvents: rejectedEvents,
            loggedPerInstall: installs.map(\.nextCounter), runTag: settings.runTag,
            seed: settings.seed)
    }

    /// Called about once a second, on the run's thread, with a snapshot of the run so far.
    package func onProgress(_ report: @escaping (LoadProgress) -> Void) { progress = report }

    /// A seed for one stream of the run (1 the jitter, 2 the visits) and one index in it, mixed so that
    /// neighbouring indices do not give overlapping SplitMix64 sequences.
    static func derivedSeed(_ seed: UInt64, stream: UInt64, index: Int) -> UInt64 {
        var mixer = SplitMix64(seed: seed ^ (stream &* 0xD1B5_4A32_D192_ED03))
        mixer = SplitMix64(seed: mixer.next() ^ UInt64(truncatingIfNeeded: index))
        return mixer.next()
    }

    private var isDrained: Bool { pendingEventsTotal == 0 && batchesOutstanding == 0 && client.inFlight == 0 }

    // MARK: - Visits

    /// Visit `number` of the schedule, with a generator of its own drawn from the seed and its number: which
    /// install it is and what its shopper does do not depend on what earlier visits drew (a grant that arrived
    /// in time, a visit dropped at the cap).
    private func visit(number: Int, at intended: UInt64, now: UInt64) {
        var random = SplitMix64(seed: Self.derivedSeed(settings.seed, stream: 2, index: number))
        let index = random.below(settings.installs)
        if !installs[index].launched { launch(index, at: intended, now: now, random: &random) }
        refreshGrantsIfDue(index, at: intended, now: now)
        let timestamp = wallStart &+ Int64((intended &- monotonicStart) / 1_000_000)
        let config = configs.configs[installs[index].configuration]
        let before = installs[index].pendingCount
        let logged = simulator.visit(
            &installs[index], index: index, config: config, timestamp: timestamp, random: &random)
        guard logged > 0 else { return }
        statistics.eventsLogged += logged
        pendingEventsTotal += logged
        if before == 0 { installs[index].oldestPendingAt = intended }
        if installs[index].pendingCount >= settings.batchSize && installs[index].fullSince == nil {
            installs[index].fullSince = intended
        }
        sendIfDue(index, now: now)
    }

    /// An install's first visit is its app launch: it polls the configuration (it holds the bundled copy, the
    /// fleet's first), fetches its customer's grants, and may be one of those that go offline once.
    private func launch(_ index: Int, at intended: UInt64, now: UInt64, random: inout SplitMix64) {
        installs[index].launched = true
        requestConfig(index, due: intended, conditional: false)
        if settings.offlineShare > 0 && random.chance(settings.offlineShare) {
            let remaining =
                settings.duration.nanosecondsClamped &- min(now &- monotonicStart, settings.duration.nanosecondsClamped)
            let start = now &+ UInt64(random.unit() * Double(remaining / 2))
            timers.schedule(.offlineStart(index), at: start)
        }
    }

    private func fire(_ timer: Timer, deadline: UInt64, now: UInt64) {
        switch timer {
        case .batchAge(let index):
            sendIfDue(index, now: now)
        case .retry(let index):
            guard let batch = installs[index].batch, !batch.inFlight, batch.dueAt <= now else { return }
            submitBatch(index)
        case .configPoll(let index):
            guard scheduling, !installs[index].configRequestInFlight else { return }
            requestConfig(index, due: deadline)
        case .offlineStart(let index):
            guard scheduling else { return }
            let until = MonotonicClock.deadline(from: now, after: settings.offlineDuration)
            installs[index].offlineUntil = until
            timers.schedule(.offlineEnd(index), at: until)
        case .offlineEnd(let index):
            installs[index].offlineUntil = 0
            sendIfDue(index, now: now)
        }
    }

    /// The run is over: every install comes back online and sends what it holds, whatever its batch age.
    private func flushAll(now: UInt64) {
        for index in installs.indices where installs[index].pendingCount > 0 {
            installs[index].flushing = true
            installs[index].offlineUntil = 0
            sendIfDue(index, now: now)
        }
    }

    private func handle(_ completion: ClientCompletion) {
        if let endpoint = completion.tag.endpoint {
            var failure: EndpointStatistics.TransportFailure?
            if case .failure(let reason) = completion.outcome { failure = reason }
            statistics[endpoint].record(
                status: completion.status, failure: failure, latencyNanoseconds: completion.latencyNanoseconds,
                isRetry: completion.tag.isRetry)
            intervalLatency.record(nanoseconds: completion.latencyNanoseconds)
        }
        let index = completion.tag.owner
        guard installs.indices.contains(index) else { return }
        switch completion.tag.endpoint {
        case .events: batchAnswered(index, completion)
        case .config: configAnswered(index, completion)
        case .grants: grantsAnswered(index, completion)
        case nil: break
        }
    }
}

@available(*, unavailable)
extension FleetRunner: Sendable {}
