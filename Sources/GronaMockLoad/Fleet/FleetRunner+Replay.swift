import GronaMock

/// `--replay FILE`: instead of the simulated visits, the file's events as they fall due (`ReplayFeed`), each
/// queued on its install with a fresh eventID of the run (`<runTag>-<install>-<counter>`, so a replay can be
/// made again and `--verify` finds its events) and sent in batches exactly as the fleet's are.
extension FleetRunner {
    /// Events queued and not yet in a batch, at most, before the replay waits for batches to leave: a file whose
    /// events fall due faster than the service takes them (a burst at one timestamp, or a high `--speed`) must
    /// not end up in memory whole. The wait shows as start lag, as a slow generator's does.
    static let replayPendingLimit = 50_000

    /// The replay waits for batches to leave before it queues more (`replayPendingLimit`).
    var replayIsHeldBack: Bool { pendingEventsTotal >= Self.replayPendingLimit }

    func feedReplay(now: UInt64) {
        guard let feed = replay else { return }
        var eventID: [UInt8] = []
        while scheduling, !replayIsHeldBack, let (event, index, intended) = feed.pop(now: now) {
            if event.visitID == nil || feed.lastVisit[index] != event.visitID {
                feed.lastVisit[index] = event.visitID
                statistics.visitsScheduled += 1
                statistics.visitsStarted += 1
            }
            let timestamp = wallStart &+ Int64((intended &- monotonicStart) / 1_000_000)
            eventID.removeAll(keepingCapacity: true)
            encoder.appendEventID(install: index, counter: installs[index].nextCounter, into: &eventID)
            let before = installs[index].pendingCount
            event.encoded(
                eventID: eventID, timestamp: timestamp, runTag: settings.runTag, into: &installs[index].pending)
            installs[index].nextCounter &+= 1
            installs[index].pendingEnds.append(installs[index].pending.count)
            statistics.eventsLogged += 1
            pendingEventsTotal += 1
            if before == 0 { installs[index].oldestPendingAt = intended }
            if installs[index].pendingCount >= settings.batchSize && installs[index].fullSince == nil {
                installs[index].fullSince = intended
            }
            sendIfDue(index, now: now)
        }
    }

    /// The `installID` of a batch: the file's own for a replay (its assignments are the install's), the
    /// fleet's otherwise.
    func installName(_ index: Int) -> String {
        if let replay, replay.plan.installIDs.indices.contains(index) { return replay.plan.installIDs[index] }
        return encoder.installID(index)
    }

    /// What went wrong reading the replay file the second time (it changed, or could not be read), for the
    /// command to say after the report; nil when every line of the plan was sent.
    package var replayProblem: String? {
        guard let replay else { return nil }
        if let error = replay.readError { return "--replay: reading stopped early: \(error)" }
        // The lines found bad in the first pass are skipped again (with --skip-bad): only more than those is news.
        let changed = replay.skipped - replay.plan.badLines
        if changed > 0 {
            return "--replay: \(changed) line\(changed == 1 ? "" : "s") changed since the file was checked and "
                + "\(changed == 1 ? "was" : "were") not sent"
        }
        return nil
    }
}
