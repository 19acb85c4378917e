import GronaMock
import GronaMockPlatform

/// The open model's visits (each drawn from the seed and its number), an install's launch, the timers the
/// loop fires, and the flush at the end of the run.
extension FleetRunner {
    /// Visit `number` of the schedule, with a generator of its own drawn from the seed and its number: which
    /// install it is and what its shopper does do not depend on what earlier visits drew (a grant that arrived
    /// in time, a visit dropped at the cap).
    func visit(number: Int, at intended: UInt64, now: UInt64) {
        var random = SplitMix64(seed: Self.derivedSeed(settings.engineSeed, stream: 2, index: number))
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
    func launch(_ index: Int, at intended: UInt64, now: UInt64, random: inout SplitMix64) {
        installs[index].launched = true
        requestConfig(index, due: intended, conditional: false)
        if settings.offlineShare > 0 && random.chance(settings.offlineShare) {
            let remaining =
                settings.duration.nanoseconds &- min(now &- monotonicStart, settings.duration.nanoseconds)
            let start = now &+ UInt64(random.unit() * Double(remaining / 2))
            timers.schedule(.offlineStart(index), at: start)
        }
    }

    func fire(_ timer: Timer, deadline: UInt64, now: UInt64) {
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
            guard installs[index].offlineUntil != 0 else { return }
            installs[index].offlineUntil = 0
            installs[index].onlineSince = deadline
            sendIfDue(index, now: now)
        }
    }

    /// The run is over: every install that is offline comes back online, and sends what it holds by the batch
    /// rules (size or age).
    func comeBackOnline(now: UInt64) {
        for index in installs.indices where installs[index].pendingCount > 0 {
            if installs[index].offlineUntil > now { installs[index].onlineSince = now }
            installs[index].offlineUntil = 0
            sendIfDue(index, now: now)
        }
    }

    /// The run was stopped (Ctrl-C): every install comes back online and sends what it holds at once, whatever
    /// its batch age, so that the short drain of a stop sees every event sent.
    func flushAll(now: UInt64) {
        for index in installs.indices where installs[index].pendingCount > 0 {
            installs[index].flushing = true
            if installs[index].offlineUntil > now { installs[index].onlineSince = now }
            installs[index].offlineUntil = 0
            sendIfDue(index, now: now)
        }
    }
}
