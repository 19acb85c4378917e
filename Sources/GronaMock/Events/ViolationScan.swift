/// The violation rules run over stored events in visit order (`GronaStorage.scanEvents`), one visit at a
/// time: time linear in the events read, memory bounded by the page and one visit's groups, never by its
/// events.
///
/// Each event's own violations are answered as soon as it is checked; a visit's `repeated_in_visit` and
/// `action_without_served` once the scan moves past it, since the order puts its events together whatever
/// batches, instances or order they arrived in. An event without a visit is judged alone. A page ends inside
/// a visit when the limit is reached there: the cursor names the visit's first event and how many of its
/// violations were answered, and the next page checks that visit again and skips them.
///
/// A run of pages (`run(_:throughSequence:pageEnded:)`) goes on past a full page in the same scan: the next page
/// starts with the rest of the visit at hand, exactly as a request with the full page's cursor would (the same
/// violations, the same `checkedEvents`), without a new statement, a seek and the visit checked again.
struct ViolationScan {
    struct Outcome {
        var violations: [Violation] = []
        var counts: [ViolationRule: Int] = [:]
        var checkedEvents = 0
        var next: ViolationCursor?
        /// Rows the storage read, those read ahead past the page's end included: the scan's work, which the
        /// tests bound by the events stored (linear, whatever the density).
        var rowsRead = 0
        /// The most events of one visit checked before its end: what the scan would keep besides the page if
        /// the visit's ledger held every event.
        var mostEventsHeld = 0
        /// The most events the visit's ledger kept in memory at once (`VisitLedger.keptEvents`), and how many
        /// visits it moved to disk past `visitMemoryBound`.
        var mostEventsKept = 0
        var visitsSpilled = 0
        /// The violations found, when `spools` (an unpaged answer): as JSON, not in `violations`.
        var spool = ViolationSpool()
    }

    let storage: any GronaStorage
    let workspace: String
    let query: ViolationQuery
    /// Whether the violations go to `Outcome.spool` instead of `Outcome.violations`: for an unpaged answer,
    /// which can hold hundreds of thousands.
    var spools = false
    /// `ViolationSpool.memoryLimit` (smaller in tests, to see the file used).
    var spoolMemoryLimit = ViolationSpool.standardMemoryLimit
    /// The kept events past which a visit is judged on disk (`VisitLedger.memoryBound`), and the memory of its
    /// sorts there (smaller in tests).
    var visitMemoryBound = VisitLedger.standardMemoryBound
    var visitSpillMemoryLimit = ExternalSort.standardMemoryLimit

    /// Checks the events up to `throughSequence` (the cursor's when resuming): the violations of one page
    /// (all when the query has no limit), or the counts per rule for a summary.
    ///
    /// With `pageEnded`, each full page is handed to it (with its `next`), and the scan goes on to the next page
    /// while it answers true; what is returned is then the last page, handed to `pageEnded` already if the scan
    /// stopped because it answered false (`Outcome.next` set), not yet otherwise.
    func run(
        _ checker: ViolationsChecker, throughSequence: Int64, pageEnded: ((Outcome) -> Bool)? = nil
    ) throws(StorageError) -> Outcome {
        var checker = checker
        // A summary counts violations by rule: their sentences would be made to be thrown away.
        checker.describes = !query.summary
        checker.visitMemoryBound = visitMemoryBound
        checker.visitSpillMemoryLimit = visitSpillMemoryLimit
        var outcome = Outcome()
        outcome.spool.memoryLimit = spoolMemoryLimit
        var skip = query.cursor?.skip ?? 0
        var groupStart: EventScanPosition?
        var held = 0
        // Rows handed over by the storage, and those counted in the pages already handed to `pageEnded`.
        var rowsHanded = 0
        var rowsOfEarlierPages = 0
        // What the filters need to know of the event at hand; the visit's ledger keeps those of the events it
        // keeps for the visit's end (`ViolationsChecker.add`).
        var eventFacts: EventFacts?
        // One event's violations, the array's storage kept from one to the next.
        var found: [Violation] = []
        // The violations of the visit at hand that the filters admitted: the cursor's `skip` when a page ends.
        var admitted = 0
        // Why the visit at hand could not be judged (its scratch file failed), which ends the scan.
        var visitError: StorageError?
        let needsFacts = query.since != nil || query.until != nil || query.campaignID != nil
        // A cursor is the client's to send back, so its bound is never past the events stored now: a forged
        // one must not widen the scan.
        let through = min(query.cursor?.throughSequence ?? throughSequence, throughSequence)

        /// Answers one violation of the visit that starts at `start`, `facts` telling what the filters need of
        /// its events; false when the page filled up (and the scan stops there).
        func answer(_ violation: Violation, _ facts: (Int64) -> EventFacts?, _ start: EventScanPosition) -> Bool {
            guard query.admits(violation, facts) else { return true }
            defer { admitted += 1 }
            guard admitted >= skip else { return true }
            if query.summary {
                outcome.counts[violation.rule, default: 0] += 1
                return true
            }
            if let limit = query.limit, outcome.violations.count >= limit {
                outcome.next = ViolationCursor(throughSequence: through, position: start, skip: admitted)
                outcome.rowsRead = rowsHanded - rowsOfEarlierPages
                guard let pageEnded, pageEnded(outcome) else { return false }
                // The next page, as a request with that cursor would make it: the visit at hand checked (its
                // events counted again), its first `admitted` violations skipped.
                rowsOfEarlierPages = rowsHanded
                outcome = Outcome()
                outcome.checkedEvents = held
                outcome.mostEventsHeld = held
            }
            if spools {
                outcome.spool.append(violation)
            } else {
                outcome.violations.append(violation)
            }
            return true
        }

        /// Decides the visit at hand; false when the page filled up inside it, or it could not be judged.
        func closeVisit(_ start: EventScanPosition) -> Bool {
            defer {
                skip = 0
                admitted = 0
            }
            if checker.visitIsSpilled { outcome.visitsSpilled += 1 }
            do {
                return try checker.decideVisit { violation, facts in answer(violation, facts, start) }
            } catch {
                visitError = error
                return false
            }
        }

        let scan = EventScan(
            workspace: workspace, installID: query.installID, start: query.cursor?.position, throughSequence: through)
        var stopped = false
        var columns = RowMemo()
        let rowsRead = try PrefetchingScan.run(storage, scan, prepare: CheckedEvent.skim) { batch, index in
            rowsHanded += 1
            let event = CheckedEvent(batch, row: index, columns: &columns)
            // Grouping, the cursor's position and the filters' facts come from the columns the storage orders
            // by, never from the JSON an unskimmable event was parsed from (the two can differ).
            let row = batch.rows[index]
            let installID = columns.installID.value(batch, row.installID) ?? ""
            let visitID = columns.visitID.value(batch, row.visitID)
            // Byte for byte, as the storage orders them (`ExactText`).
            if let start = groupStart,
                visitID == nil || !ExactText.equal(visitID, start.visitID)
                    || !ExactText.equal(installID, start.installID)
            {
                guard closeVisit(start) else {
                    stopped = true
                    return false
                }
                groupStart = nil
                held = 0
            }
            let start =
                groupStart ?? EventScanPosition(installID: installID, visitID: visitID, sequence: row.sequence)
            groupStart = start
            held += 1
            outcome.mostEventsHeld = max(outcome.mostEventsHeld, held)
            if needsFacts {
                let campaigns =
                    columns.campaignID.value(batch, row.campaignID).map { [$0] }
                    ?? event.treatments.map(\.campaignID)
                eventFacts = EventFacts(timestamp: row.timestamp, campaigns: campaigns)
            }
            checker.add(event, facts: eventFacts)
            outcome.checkedEvents += 1
            outcome.mostEventsKept = max(outcome.mostEventsKept, checker.keptEvents)
            checker.takeEventViolations(into: &found)
            for violation in found {
                guard answer(violation, { $0 == row.sequence ? eventFacts : nil }, start) else {
                    stopped = true
                    return false
                }
            }
            return true
        }
        if !stopped, let start = groupStart { _ = closeVisit(start) }
        if let visitError { throw visitError }
        // The rows read ahead and never handed over count in the last page's work.
        outcome.rowsRead = rowsRead - rowsOfEarlierPages
        return outcome
    }
}
