import GronaMock
import GronaMockPlatform

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
    /// The wall clock at the run's start (when `elapsedSeconds` starts), for a merge of shards' reports.
    package var startedAtUnixMilliseconds: Int64 = 0
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
    /// Asked on every turn of the loop whether the run should stop early (Ctrl-C): then no visit starts,
    /// what is pending is sent, and answers are awaited for at most `interruptDrainLimit`.
    var stopRequested: () -> Bool = { false }
    /// The latencies of the attempts that ended since the last progress snapshot, for the progress line's
    /// p50/p99 of the last second (the run's histograms cannot be subtracted).
    var intervalLatency = LatencyHistogram()
    /// `--replay`: the file's events instead of simulated visits (`FleetRunner+Replay.swift`).
    var replay: ReplayFeed?

    /// Fetches the JWKS and the configuration, and verifies it: a run that cannot do that is not made.
    package init(settings: LoadSettings) throws(LoadRunError) {
        self.settings = settings
        try DescriptorBudget.ensure(connections: settings.maxInFlight)
        do {
            client = try HTTPClient(
                HTTPClient.Configuration(
                    host: settings.host, port: settings.port, maxConnections: settings.maxInFlight,
                    timeout: settings.timeout, largestAnswer: AnswerLimit.configuration, tls: settings.tls))
        } catch {
            throw LoadRunError("cannot start the client: \(error)")
        }
        encoder = EventEncoder(runTag: settings.runTag, firstInstall: settings.firstInstall)
        var random = SplitMix64(seed: settings.engineSeed)
        jitter = SplitMix64(seed: Self.derivedSeed(settings.engineSeed, stream: 1, index: 0))
        acknowledged = AcknowledgedEvents(installs: settings.installs)
        retryPolicy = RetryPolicy(maxRetries: settings.maxRetries, base: settings.retryBase)
        simulator = VisitSimulator(
            encoder: encoder, catalogue: .standard, offersEnabled: settings.secretKey != nil)
        installs = []
        installs.reserveCapacity(settings.installs)
        for index in 0..<settings.installs {
            var install = InstallState()
            if random.chance(settings.identified) {
                install.customerID = "cust-\(settings.runTag)-\(settings.firstInstall + index)"
            }
            installs.append(install)
        }
        if let plan = settings.replay {
            // A replay sends the file's events, no configuration or grants: it needs only the events endpoint.
            configs = ConfigStore(keys: [:], workspace: settings.workspace)
            monotonicStart = MonotonicClock.now()
            wallStart = WallClock.milliseconds()
            do {
                replay = try ReplayFeed(plan: plan, start: monotonicStart)
            } catch {
                throw LoadRunError("--replay: \(error)")
            }
            return
        }
        let keys = try Self.fetchKeys(client, settings)
        configs = ConfigStore(keys: keys, workspace: settings.workspace)
        try Self.fetchFirstConfig(client, settings, into: &configs)
        monotonicStart = MonotonicClock.now()
        wallStart = WallClock.milliseconds()
    }

    /// Runs the schedule, then flushes and waits for the answers (at most `drainLimit`, or
    /// `interruptDrainLimit` once a stop is requested).
    package func run() -> LoadRunResult {
        var visits = VisitClock(schedule: settings.schedule, start: monotonicStart)
        let end = MonotonicClock.deadline(from: monotonicStart, after: settings.duration)
        var drainDeadline = UInt64.max
        var nextProgress = monotonicStart &+ 1_000_000_000
        // One clock read per turn, the poll's, taken as its wait returns (and one per request handed over).
        var now = client.tick()
        while true {
            if !statistics.interrupted && stopRequested() {
                statistics.interrupted = true
                drainDeadline = min(
                    drainDeadline, MonotonicClock.deadline(from: now, after: settings.interruptDrainLimit))
                scheduling = false
                flushAll(now: now)
            }
            feedReplay(now: now)
            while scheduling, replay == nil, let intended = visits.nextVisit(now: now) {
                statistics.visitsScheduled += 1
                if client.inFlight >= settings.maxInFlight {
                    statistics.visitsDropped += 1
                } else {
                    statistics.visitsStarted += 1
                    visit(number: visits.issued, at: intended, now: now)
                }
            }
            while let timer = timers.popDue(now: now) { fire(timer.payload, deadline: timer.deadline, now: now) }
            if scheduling && (replay.map(\.isFinished) ?? (now >= end)) {
                drainDeadline = MonotonicClock.deadline(from: now, after: settings.drainLimit)
                stopScheduling(now: now)
            }
            if !scheduling && (isDrained || now >= drainDeadline) { break }
            if now >= nextProgress {
                reportProgress(now: now)
                nextProgress &+= 1_000_000_000 * max(1, (now &- nextProgress) / 1_000_000_000 + 1)
            }
            var wait = waitNanoseconds(until: wake(nextProgress, visits, end, drainDeadline), now: now)
            // The work of this turn took time: before sleeping, look at the clock again.
            if wait > 0 {
                wait = waitNanoseconds(until: wake(nextProgress, visits, end, drainDeadline), now: client.tick())
            }
            client.poll(timeoutNanoseconds: wait) { completion in
                handle(completion)
            }
            now = client.now
        }
        statistics.eventsUnsent = pendingEventsTotal + installs.reduce(0) { $0 + ($1.batch?.count ?? 0) }
        statistics.answersWaitedForMemory = client.answerMemoryWaits
        return LoadRunResult(
            statistics: statistics, elapsedSeconds: Double(client.tick() &- monotonicStart) / 1e9,
            acknowledged: acknowledged, rejectedEvents: rejectedEvents,
            loggedPerInstall: installs.map(\.nextCounter), runTag: settings.runTag,
            seed: settings.seed, startedAtUnixMilliseconds: wallStart)
    }

    /// The earliest of what the loop waits for: the next progress snapshot, visit, timer, the end of the
    /// schedule or of the drain.
    private func wake(_ nextProgress: UInt64, _ visits: VisitClock, _ end: UInt64, _ drainDeadline: UInt64) -> UInt64 {
        // A replay held back waits for answers (the poll wakes on them), not for its next event, already due.
        let nextDue =
            replay.map { replayIsHeldBack ? nextProgress : $0.nextDue ?? 0 } ?? min(end, visits.nextDueTime ?? end)
        var wake = min(nextProgress, scheduling ? nextDue : drainDeadline)
        if let timer = timers.nextDeadline { wake = min(wake, timer) }
        return wake
    }

    /// Nanoseconds to `wake`, at most 50 ms (so that a stop request is seen soon). Not whole milliseconds: at a
    /// few hundred visits per second the next one is nearly always less than a millisecond away, and a wait
    /// rounded down to 0 made this loop spin, taking most of a core from the service it measures.
    private func waitNanoseconds(until wake: UInt64, now: UInt64) -> UInt64 {
        wake > now ? min(wake - now, 50_000_000) : 0
    }

    /// No visit starts any more. Every install comes back online and sends what it holds as the SDK would, when
    /// a batch is full or its oldest event is `--batch-age` old: flushing every install at the same instant would
    /// be a burst no fleet of devices makes, and its queueing would be measured as the service's latency.
    private func stopScheduling(now: UInt64) {
        scheduling = false
        comeBackOnline(now: now)
    }

    private func reportProgress(now: UInt64) {
        guard let progress else { return }
        statistics.answersWaitedForMemory = client.answerMemoryWaits
        progress(
            LoadProgress(
                statistics: statistics, elapsedSeconds: Double(now &- monotonicStart) / 1e9,
                inFlight: client.onConnections, queued: client.queued, draining: !scheduling,
                intervalLatency: intervalLatency))
        intervalLatency = LatencyHistogram()
    }

    /// Called about once a second, on the run's thread, with a snapshot of the run so far.
    package func onProgress(_ report: @escaping (LoadProgress) -> Void) { progress = report }

    /// `check` is called on every turn of the run's loop (every 50 ms at most): true stops the run early
    /// (Ctrl-C). It should only read a flag.
    package func stopWhen(_ check: @escaping () -> Bool) { stopRequested = check }

    /// A seed for one stream of the run (1 the jitter, 2 the visits) and one index in it, mixed so that
    /// neighbouring indices do not give overlapping SplitMix64 sequences.
    static func derivedSeed(_ seed: UInt64, stream: UInt64, index: Int) -> UInt64 {
        var mixer = SplitMix64(seed: seed ^ (stream &* 0xD1B5_4A32_D192_ED03))
        mixer = SplitMix64(seed: mixer.next() ^ UInt64(truncatingIfNeeded: index))
        return mixer.next()
    }

    private var isDrained: Bool { pendingEventsTotal == 0 && batchesOutstanding == 0 && client.inFlight == 0 }

    private func handle(_ completion: ClientCompletion) {
        if let endpoint = completion.tag.endpoint {
            var failure: EndpointStatistics.TransportFailure?
            if case .failure(let reason) = completion.outcome { failure = reason }
            statistics.record(
                endpoint, status: completion.status, failure: failure,
                latencyNanoseconds: completion.latencyNanoseconds, startLagNanoseconds: completion.startLagNanoseconds,
                answerLagNanoseconds: completion.answerLagNanoseconds, isRetry: completion.tag.isRetry)
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
