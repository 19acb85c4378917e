import GronaMockHTTP

/// The one thread that writes events. Requests that arrive together are written in one transaction (group
/// commit), and each request's completion runs only after that transaction has committed: a 200 from the
/// events endpoint means the events are in the database (contract §7).
///
/// The policy lives here, the same for every backend: grouping, completions after the commit, the
/// `--max-events` bound, metrics and the writable status health reports. The backend only commits.
final class EventWriter: Sendable {
    enum Job: Sendable {
        case write(EventBatch, @Sendable (Result<EventBatchResult, StorageError>) -> Void)
        case delete(workspaceKey: String?, @Sendable (Result<Int, StorageError>) -> Void)
        /// A one-row write committed like any batch: health asks it whether events can be stored now.
        case probe(@Sendable (Result<Void, StorageError>) -> Void)
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

    private let storage: any GronaStorage
    private let jobs = Mutex<[Job]>([])
    private let worker = WorkerThread(name: "grona-writer")
    /// Called on the writer thread after each commit, with the workspaces it touched.
    private let onCommit: @Sendable (Set<String>) -> Void
    /// With a bound, the oldest events are dropped after each commit to keep at most this many.
    private let maxEvents: Int?
    private let logger: Logger
    private let metrics: Metrics?

    init(
        storage: any GronaStorage, maxEvents: Int?, logger: Logger, metrics: Metrics? = nil,
        onCommit: @escaping @Sendable (Set<String>) -> Void
    ) {
        self.metrics = metrics
        self.storage = storage
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
        // The bound is kept with a running count: counting rows after every commit would cost a scan.
        var stored = maxEvents == nil ? 0 : (try? storage.eventCount()) ?? 0
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
            process(group, stored: &stored)
        }
    }

    private func process(_ group: [Job], stored: inout Int) {
        let changes = group.map { job -> StorageChange in
            switch job {
            case .write(let batch, _): .batch(batch)
            case .delete(let workspaceKey, _): .deleteEvents(workspaceKey: workspaceKey)
            case .probe: .probe
            }
        }
        var outcomes: Result<[StorageChangeOutcome], StorageError>
        do throws(StorageError) {
            let results = try storage.commit(changes)
            guard results.count == changes.count else {
                throw StorageError(
                    .failed, "the storage answered \(results.count) outcomes for \(changes.count) changes")
            }
            outcomes = .success(results)
            status.withLock { $0.writable = true }
        } catch {
            logger.error("events could not be stored", [("error", "\(error)")])
            outcomes = .failure(error)
            status.withLock {
                $0.writable = false
                $0.lastError = "\(error)"
            }
        }
        let results = (try? outcomes.get()) ?? []
        var touched: Set<String> = []
        var deletedAny = false
        var written = 0
        for (change, outcome) in zip(changes, results) {
            switch (change, outcome) {
            case (.batch(let batch), .batch(let counts)):
                touched.insert(batch.workspaceKey)
                stored += counts.accepted
                written += batch.accepted.count + batch.rejected.count
                metrics?.add("grona_events_accepted_total", counts.accepted)
                metrics?.add("grona_events_duplicate_total", counts.duplicates)
                metrics?.add("grona_events_rejected_total", batch.rejected.count)
            case (.deleteEvents, _):
                deletedAny = true
            default:
                break
            }
        }
        if written > 0 { metrics?.recordCommit(events: written) }
        // Committed: whatever happens from here on, the answers are successes. Keeping the bound is
        // housekeeping, and its failure is only logged.
        if let maxEvents, !touched.isEmpty || deletedAny {
            do throws(StorageError) {
                if deletedAny { stored = try storage.eventCount() }
                if stored > maxEvents {
                    try storage.dropOldestEvents(stored - maxEvents, keepingRejected: maxEvents)
                    stored = maxEvents
                }
            } catch {
                logger.warning("could not drop the oldest events past --max-events", [("error", "\(error)")])
            }
        }
        for (index, job) in group.enumerated() {
            let outcome = outcomes.map { $0[index] }
            switch job {
            case .write(_, let completion):
                completion(
                    outcome.flatMap { outcome in
                        guard case .batch(let counts) = outcome else { return .failure(Self.mismatch) }
                        return .success(counts)
                    })
            case .delete(_, let completion):
                completion(
                    outcome.flatMap { outcome in
                        guard case .deleted(let events) = outcome else { return .failure(Self.mismatch) }
                        return .success(events)
                    })
            case .probe(let completion):
                completion(outcome.map { _ in () })
            }
        }
        if !touched.isEmpty || deletedAny { onCommit(touched) }
    }

    private static let mismatch = StorageError(.failed, "the storage answered a change with another kind of outcome")
}
