import GronaHTTP
import GronaJSON
import Synchronization

/// The one thread that writes events. Requests that arrive together are written in one transaction (group
/// commit), and each request's completion runs only after that transaction has committed: a 200 from the
/// events endpoint means the events are in the database (contract §7).
final class EventWriter: Sendable {
    enum Job: Sendable {
        case write(EventBatch, @Sendable (Result<EventBatchResult, SQLiteError>) -> Void)
        case delete(workspaceKey: String?, @Sendable (Result<Int, SQLiteError>) -> Void)
        /// A one-row write committed like any batch: health asks it whether events can be stored now.
        case probe(@Sendable (Result<Void, SQLiteError>) -> Void)
    }

    /// What the last commit said about the database, for health.
    struct Status: Sendable {
        var writable = true
        /// The last failure, kept after a later success so that an intermittent fault stays visible.
        var lastError: String?
    }

    /// Read from any thread; written by the writer after each group.
    let status = Mutex(Status())

    /// Commits a group in at most this many jobs, so one transaction never grows without bound.
    private static let maxGroup = 256

    private let database: Database
    private let jobs = Mutex<[Job]>([])
    private let worker = WorkerThread(name: "grona-writer")
    /// Called on the writer thread after each commit, with the workspaces it touched.
    private let onCommit: @Sendable (Set<String>) -> Void
    /// With a bound, the oldest events are dropped after each commit to keep at most this many.
    private let maxEvents: Int?
    private let logger: Logger
    private let metrics: Metrics?

    init(
        database: Database, maxEvents: Int?, logger: Logger, metrics: Metrics? = nil,
        onCommit: @escaping @Sendable (Set<String>) -> Void
    ) {
        self.metrics = metrics
        self.database = database
        self.maxEvents = maxEvents
        self.logger = logger
        self.onCommit = onCommit
        worker.start { [self] in run() }
    }

    func submit(_ job: Job) {
        jobs.withLock { $0.append(job) }
        worker.wake()
    }

    /// Writes everything queued, then stops the thread. Called after the HTTP server has stopped, when no
    /// request can submit another job.
    func stop() { worker.stop() }

    private func run() {
        var statements: Statements?
        // The bound is kept with a running count: counting rows after every commit would cost a scan.
        var stored =
            maxEvents == nil
            ? 0
            : (try? database.withConnection { connection throws(SQLiteError) in
                Int(try connection.scalarText("SELECT count(*) FROM events") ?? "0") ?? 0
            }) ?? 0
        while true {
            _ = worker.sleep(upTo: nil)
            let group = jobs.withLock { jobs -> [Job] in
                let taken = Array(jobs.prefix(Self.maxGroup))
                jobs.removeFirst(taken.count)
                return taken
            }
            if group.isEmpty {
                if worker.isStopping && jobs.withLock({ $0.isEmpty }) { return }
                continue
            }
            // More jobs than one group: come round again without waiting.
            if jobs.withLock({ !$0.isEmpty }) { worker.wake() }
            process(group, statements: &statements, stored: &stored)
        }
    }

    private func process(_ group: [Job], statements: inout Statements?, stored: inout Int) {
        var results: [Result<EventBatchResult, SQLiteError>] = []
        var deleted: [Result<Int, SQLiteError>] = []
        var touched: Set<String> = []
        var failure: SQLiteError?
        do {
            try database.withConnection { connection throws(SQLiteError) in
                if statements == nil { statements = try Statements(connection) }
                guard let statements else { return }
                try connection.execute("BEGIN IMMEDIATE")
                do throws(SQLiteError) {
                    for job in group {
                        switch job {
                        case .write(let batch, _):
                            results.append(.success(try write(batch, statements, connection)))
                            touched.insert(batch.workspaceKey)
                        case .delete(let workspaceKey, _):
                            deleted.append(.success(try delete(workspaceKey, connection)))
                        case .probe:
                            try statements.probe.run([.integer(Int64(group.count))])
                        }
                    }
                    try connection.execute("COMMIT")
                } catch {
                    try? connection.execute("ROLLBACK")
                    throw error
                }
            }
            status.withLock { $0.writable = true }
        } catch {
            logger.error("events could not be stored", [("error", "\(error)")])
            failure = error
            status.withLock {
                $0.writable = false
                $0.lastError = "\(error)"
            }
            results = Array(repeating: .failure(error), count: results.count + group.count)
            deleted = Array(repeating: .failure(error), count: group.count)
            touched = []
        }
        // Committed: whatever happens from here on, the answers are successes. Keeping the bound is
        // housekeeping, and its failure is only logged.
        if maxEvents != nil && !touched.isEmpty || !deleted.isEmpty {
            do {
                try database.withConnection { connection throws(SQLiteError) in
                    stored += results.reduce(0) { $0 + ((try? $1.get().accepted) ?? 0) }
                    if !deleted.isEmpty {
                        stored = Int(try connection.scalarText("SELECT count(*) FROM events") ?? "0") ?? 0
                    }
                    stored -= try prune(connection, stored: stored)
                }
            } catch {
                logger.warning("could not drop the oldest events past --max-events", [("error", "\(error)")])
            }
        }
        if let metrics {
            var written = 0
            for (job, result) in zip(group.filter { if case .write = $0 { true } else { false } }, results) {
                guard case .write(let batch, _) = job, let counts = try? result.get() else { continue }
                metrics.add("grona_events_accepted_total", counts.accepted)
                metrics.add("grona_events_duplicate_total", counts.duplicates)
                metrics.add("grona_events_rejected_total", batch.rejected.count)
                written += batch.accepted.count + batch.rejected.count
            }
            if written > 0 { metrics.recordCommit(events: written) }
        }
        var writes = results.makeIterator()
        var deletes = deleted.makeIterator()
        for job in group {
            switch job {
            case .write(_, let completion):
                completion(writes.next() ?? .failure(SQLiteError(code: 1, message: "no result")))
            case .delete(_, let completion):
                completion(deletes.next() ?? .failure(SQLiteError(code: 1, message: "no result")))
            case .probe(let completion):
                completion(failure.map { .failure($0) } ?? .success(()))
            }
        }
        if !touched.isEmpty || !deleted.isEmpty { onCommit(touched) }
    }

    /// Inserts a batch; an event whose id is already stored for the workspace is a duplicate, not an error.
    private func write(
        _ batch: EventBatch, _ statements: Statements, _ connection: SQLiteConnection
    ) throws(SQLiteError) -> EventBatchResult {
        var result = EventBatchResult(accepted: 0, duplicates: 0)
        for event in batch.accepted {
            try statements.insertEvent.run([
                .text(event.workspaceKey), .text(event.eventID), .text(event.type), .integer(event.timestamp),
                .integer(event.receivedAt), .integer(event.correctedTimestamp), .text(event.installID),
                event.customerID.map(SQLiteValue.text) ?? .null, event.sessionID.map(SQLiteValue.text) ?? .null,
                event.visitID.map(SQLiteValue.text) ?? .null, event.campaignID.map(SQLiteValue.text) ?? .null,
                event.variantID.map(SQLiteValue.text) ?? .null, event.arm.map(SQLiteValue.text) ?? .null,
                event.placement.map(SQLiteValue.text) ?? .null, .integer(event.demo ? 1 : 0),
                event.configRevision.map(SQLiteValue.integer) ?? .null,
                event.totalMinor.map(SQLiteValue.integer) ?? .null,
                .blob(event.json),
            ])
            guard connection.changes == 1 else {
                result.duplicates += 1
                continue
            }
            result.accepted += 1
            let seq = connection.lastInsertRowID
            for treatment in event.treatments {
                try statements.insertTreatment.run([
                    .integer(seq), .text(event.workspaceKey), .text(treatment.campaignID), .text(treatment.variantID),
                    .text(treatment.placement), .text(treatment.type), .integer(treatment.valueMilli),
                ])
            }
        }
        for rejected in batch.rejected {
            try statements.insertRejected.run([
                .text(rejected.workspaceKey), .integer(Int64(rejected.index)),
                rejected.eventID.map(SQLiteValue.text) ?? .null,
                .text(rejected.field), .text(rejected.reason), .integer(rejected.receivedAt), .text(rejected.installID),
                .blob(rejected.json),
            ])
        }
        return result
    }

    private func delete(_ workspaceKey: String?, _ connection: SQLiteConnection) throws(SQLiteError) -> Int {
        let condition = workspaceKey == nil ? "" : " WHERE workspace_key = ?"
        let values: [SQLiteValue] = workspaceKey.map { [.text($0)] } ?? []
        try connection.prepare("DELETE FROM purchase_treatments" + condition).run(values)
        try connection.prepare("DELETE FROM rejected_events" + condition).run(values)
        try connection.prepare("DELETE FROM events" + condition).run(values)
        return connection.changes
    }

    /// `--max-events`: drops the oldest events (and what hangs off them, and rejected events beyond the same
    /// bound) beyond the bound; returns how many events went.
    private func prune(_ connection: SQLiteConnection, stored: Int) throws(SQLiteError) -> Int {
        guard let maxEvents, stored > maxEvents else { return 0 }
        let excess = stored - maxEvents
        let cutoff =
            Int64(try connection.scalarText("SELECT seq FROM events ORDER BY seq LIMIT 1 OFFSET \(excess - 1)") ?? "0")
            ?? 0
        // One transaction, so a crash cannot leave purchase treatments without their event; rolled back if
        // any part fails, so the next group's BEGIN is not refused.
        do {
            try pruneUpTo(cutoff, keeping: maxEvents, connection)
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
        return excess
    }

    private func pruneUpTo(_ cutoff: Int64, keeping maxEvents: Int, _ connection: SQLiteConnection) throws(SQLiteError)
    {
        try connection.execute(
            """
            BEGIN IMMEDIATE;
            DELETE FROM events WHERE seq <= \(cutoff);
            DELETE FROM purchase_treatments WHERE event_seq <= \(cutoff);
            DELETE FROM rejected_events WHERE seq <= (SELECT max(seq) FROM rejected_events) - \(maxEvents);
            COMMIT;
            """)
    }

    /// The writer's prepared statements, compiled once on its connection.
    private struct Statements {
        let insertEvent: SQLiteStatement
        let insertTreatment: SQLiteStatement
        let insertRejected: SQLiteStatement
        let probe: SQLiteStatement

        init(_ connection: SQLiteConnection) throws(SQLiteError) {
            probe = try connection.prepare("INSERT OR REPLACE INTO storage_probe (id, writes) VALUES (1, ?)")
            insertEvent = try connection.prepare(
                """
                INSERT OR IGNORE INTO events (workspace_key, event_id, type, timestamp, received_at, corrected_timestamp,
                    install_id, customer_id, session_id, visit_id, campaign_id, variant_id, arm, placement, demo,
                    config_revision, total_minor, json)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            insertTreatment = try connection.prepare(
                """
                INSERT INTO purchase_treatments (event_seq, workspace_key, campaign_id, variant_id, placement, type,
                    value_milli) VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
            insertRejected = try connection.prepare(
                """
                INSERT INTO rejected_events (workspace_key, batch_index, event_id, field, reason, received_at,
                    install_id, json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
        }
    }
}
