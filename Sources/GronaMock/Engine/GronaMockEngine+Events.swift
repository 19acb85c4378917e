import GronaMockJSON
import GronaMockPlatform

/// One page of a listing, each event as the inspection API shows it (what the SDK sent, plus the server's
/// fields), and the cursor of the next page.
package struct EventListing: Sendable {
    package let events: [JSONValue]
    package let nextCursor: Int64?
}

/// The contract violations found in one workspace's events (`GET /_mock/events/violations`).
package struct ViolationReport: Sendable {
    package let workspaceKey: String
    /// The violations of the page (all of them when the query has no limit), in the order the scan met them.
    package let violations: [Violation]
    /// With `summary`: how many of each rule.
    package let counts: [ViolationRule: Int]
    package let checkedEvents: Int
    /// Where the next page starts; set when paged and more remain.
    let next: ViolationCursor?
    /// Rows the scan read from storage (`ViolationScan.Outcome.rowsRead`).
    package let rowsRead: Int

    /// `next` as the client sends it back.
    package var nextCursor: String? { next?.text }
}

extension GronaMockEngine {
    package func events(_ filter: EventFilter, page: EventPage) throws -> EventListing {
        called()
        let (events, next) = try store.events(filter, page: page)
        return EventListing(events: events, nextCursor: next)
    }

    /// How many stored events match `filter`.
    package func countEvents(_ filter: EventFilter) throws -> Int {
        called()
        return try store.count(filter)
    }

    /// Rejected events with their reasons, oldest first.
    package func rejectedEvents(workspace: String?, page: EventPage) throws -> EventListing {
        called()
        let (events, next) = try store.rejected(workspace: workspace, page: page)
        return EventListing(events: events, nextCursor: next)
    }

    /// Per campaign, variant and arm, the count of each event type and the attributed purchases.
    package func eventSummary(workspace: String) throws -> JSONValue {
        called()
        return try store.summary(workspace: workspace)
    }

    /// The funnel of each campaign, variant and arm (`EventFunnels`).
    package func funnels(workspace: String, campaignID: String?) throws -> JSONValue {
        called()
        let figures = try store.storage.campaignCounts(workspace: workspace)
        return EventFunnels.json(figures, workspace: workspace, campaignID: campaignID)
    }

    /// The matching events as NDJSON or CSV, made a page at a time by whoever pulls (`EventExport.next`).
    package func exportEvents(_ filter: EventFilter, format: EventExport.Format) throws -> EventExport {
        called()
        return try EventExport(storage: store.storage, filter: filter, format: format)
    }

    /// Deletes one workspace's events (every workspace's: nil); `completion` gets how many.
    package func deleteEvents(
        workspace: String?, completion: @escaping @Sendable (Result<Int, StorageError>) -> Void
    ) throws {
        called()
        guard let writer = store.writer else { throw StorageError(.unavailable, "this store only reads") }
        writer.submit(.delete(workspaceKey: workspace, completion))
    }

    /// Waits until `count` events match `filter` or `timeout` passes (at most `maxWait`); `deliver` gets the
    /// outcome once. The ticket gives the wait up (the client went).
    package func waitForEvents(
        _ filter: EventFilter, count: Int, timeout: Duration,
        deliver: @escaping @Sendable (EventWaitOutcome) -> Void
    ) -> EventWaitTicket {
        called()
        return waiters.add(filter: filter, count: count, timeout: min(timeout, Self.maxWait), deliver: deliver)
    }

    /// The longest a wait may hold.
    package static let maxWait: Duration = .seconds(120)

    /// How many long-polls wait now.
    package var pendingWaits: Int { waiters.pending }

    /// Checks workspace `key`'s stored events against the contract (docs/violations.md), through the events
    /// stored when the check (or its first page) began: under steady traffic it would otherwise chase new
    /// events for ever, and pages would disagree.
    ///
    /// A page asked for with a cursor (a client following the pages) is checked in a run (`ViolationPagesAhead`)
    /// that goes on to the pages after it, in one scan, which the next requests take if they ask for exactly
    /// those: the request takes its own page from the run, so the visit the page resumes in is judged once, not
    /// again by the run after it (one visit holding every event took a second to judge, twice over).
    package func violations(_ key: String, query: ViolationQuery = ViolationQuery()) throws -> ViolationReport {
        called()
        let page = ViolationPagesAhead.Key(workspace: key, query: query)
        if query.cursor != nil { prepareRun(from: page) }
        let report = try pagesAhead.take(page) ?? checkViolations(key, query)
        // A run that ended (its client lagged past its pause) starts again from the next page, while the client
        // reads this one; a run that goes on holds that page already, and this does nothing.
        if query.cursor != nil, let next = report.next {
            var following = page
            following.query.cursor = next
            prepareRun(from: following)
        }
        return report
    }

    /// Starts a run of pages from `page`, unless it is made or being made already (or no run may start now).
    private func prepareRun(from page: ViolationPagesAhead.Key) {
        pagesAhead.prepare(page) { [self] deliver in try checkViolationPages(page.workspace, page.query, deliver) }
    }

    /// `violations` without the pages made ahead.
    private func checkViolations(_ key: String, _ query: ViolationQuery) throws -> ViolationReport {
        let outcome = try scanViolations(key, query: query, spools: false)
        var violations = outcome.violations
        if query.limit == nil && !query.summary {
            violations.sort { ($0.events.first ?? 0, $0.rule) < ($1.events.first ?? 0, $1.rule) }
        }
        return report(key, outcome, violations: violations)
    }

    /// The pages from `query`'s on, in one scan, each handed to `deliver` until it answers false or none is left.
    private func checkViolationPages(
        _ key: String, _ query: ViolationQuery, _ deliver: ViolationPagesAhead.Deliver
    ) throws {
        // The scan takes an optional (so escaping) closure, which does not outlive this call.
        try withoutActuallyEscaping(deliver) { deliver in
            var stopped = false
            let last = try scanViolations(key, query: query, spools: false) { [self] page in
                stopped = !deliver(report(key, page, violations: page.violations))
                return !stopped
            }
            if !stopped { _ = deliver(report(key, last, violations: last.violations)) }
        }
    }

    private func report(_ key: String, _ outcome: ViolationScan.Outcome, violations: [Violation]) -> ViolationReport {
        ViolationReport(
            workspaceKey: key, violations: violations, counts: outcome.counts, checkedEvents: outcome.checkedEvents,
            next: outcome.next, rowsRead: outcome.rowsRead)
    }

    /// `violations` for an unpaged list (no `limit`, no `summary`), the violations kept as JSON in the order of
    /// the answer (`ViolationSpool`), for the route to stream.
    func unpagedViolations(_ key: String, query: ViolationQuery) throws -> ViolationScan.Outcome {
        // The same operation as `violations`, answered in another form: observers hear it by that name.
        called("violations(_:query:)")
        var outcome = try scanViolations(key, query: query, spools: true)
        guard !outcome.spool.failed else {
            throw StorageError(.failed, "the violations could not be written to a temporary file")
        }
        outcome.spool.sort()
        return outcome
    }

    private func scanViolations(
        _ key: String, query: ViolationQuery, spools: Bool, pageEnded: ((ViolationScan.Outcome) -> Bool)? = nil
    ) throws -> ViolationScan.Outcome {
        try IdentifierKind.workspaceKey.validated(key, given: "?workspace")
        guard let entry = registry.entry(for: key) else { throw WorkspaceRegistry.ChangeError.unknownWorkspace(key) }
        let checker = ViolationsChecker(workspace: entry.workspace, kills: kills.intervals(for: key)) {
            [grants] customerID, campaignID, variantID in
            grants.wasIssued(workspace: key, customerID: customerID, campaignID: campaignID, variantID: variantID)
        }
        let last = try store.lastSequence()
        var scan = ViolationScan(storage: store.storage, workspace: key, query: query)
        scan.spools = spools
        return try scan.run(checker, throughSequence: last, pageEnded: pageEnded)
    }
}
