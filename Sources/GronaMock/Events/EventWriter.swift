import GronaMockPlatform

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

    /// Commits a group in at most this many jobs, so one transaction never grows without bound. It rarely
    /// binds: each connection has at most one request waiting (unless it pipelines), and a transaction of a
    /// few thousand rows already writes at the rate of a bulk insert.
    private static let maxGroup = 256

    /// The jobs waiting, and whether the writer sleeps waiting for one: a submit wakes it only then, so a
    /// busy writer is not signalled once per request.
    private struct Queue {
        var jobs: [Job] = []
        var writerAsleep = false
    }

    private let storage: any GronaStorage
    private let queue = Mutex(Queue())
    private let worker = WorkerThread(name: "grona-writer")
    /// Told each committed group (after its answers are sent) and each deletion, on the writer thread: the
    /// engine's event stream, whose listeners (the waiters, the live feed) do only a lock and a store.
    private let publish: @Sendable (EngineEvent) -> Void
    /// With a bound, the oldest events are dropped after each commit to keep at most this many.
    private let maxEvents: Int?
    private let logger: Logger
    private let metrics: Metrics?

    init(
        storage: any GronaStorage, maxEvents: Int?, logger: Logger, metrics: Metrics? = nil,
        publish: @escaping @Sendable (EngineEvent) -> Void
    ) {
        self.metrics = metrics
        self.storage = storage
        self.maxEvents = maxEvents
        self.logger = logger
        self.publish = publish
        worker.start { [self] in run() }
    }

    func submit(_ job: Job) {
        let wake = queue.withLock { queue -> Bool in
            queue.jobs.append(job)
            defer { queue.writerAsleep = false }
            return queue.writerAsleep
        }
        if wake { worker.wake() }
    }

    /// Jobs waiting for the writer now: requests' batches, and the rare delete or health probe.
    var queueDepth: Int { queue.withLock { $0.jobs.count } }

    /// Writes everything queued, then stops the thread. Called after the HTTP server has stopped, when no
    /// request can submit another job.
    func stop() { worker.stop() }

    private func run() {
        // The bound is kept with a running count: counting rows after every commit would cost a scan.
        var stored = maxEvents == nil ? 0 : (try? storage.eventCount()) ?? 0
        // Two arrays swapped with the queue's, so taking a group allocates nothing once they have grown.
        var group: [Job] = []
        while true {
            let taken = queue.withLock { queue -> Bool in
                guard !queue.jobs.isEmpty else {
                    queue.writerAsleep = true
                    return false
                }
                if queue.jobs.count <= Self.maxGroup {
                    swap(&group, &queue.jobs)
                } else {
                    group.append(contentsOf: queue.jobs.prefix(Self.maxGroup))
                    queue.jobs.removeFirst(Self.maxGroup)
                }
                return true
            }
            guard taken else {
                // Everything submitted before `stop` has been written once the queue is found empty.
                if worker.isStopping { return }
                _ = worker.sleep(upTo: nil)
                continue
            }
            process(group, stored: &stored)
            group.removeAll(keepingCapacity: true)
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
        let start = MonotonicClock.now()
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
        let seconds = Double(MonotonicClock.now() &- start) / 1e9
        let results = (try? outcomes.get()) ?? []
        var touched: Set<String> = []
        var deletedAny = false
        var deleted: [String?] = []
        var written: [(EventBatch, EventBatchResult)] = []
        var events = 0
        // Changes the storage answered `.failed` while it stored the others: logged once for the commit.
        var failed: Int?
        var failedError: StorageError?
        for (change, outcome) in zip(changes, results) {
            switch (change, outcome) {
            case (.batch(let batch), .batch(let counts)):
                touched.insert(batch.workspaceKey)
                stored += counts.accepted
                events += batch.accepted.count + batch.rejected.count
                written.append((batch, counts))
            case (.deleteEvents(let workspaceKey), .deleted):
                deletedAny = true
                deleted.append(workspaceKey)
            case (_, .failed(let error)):
                failed = (failed ?? 0) + 1
                failedError = error
            default:
                break
            }
        }
        if let failed, let failedError {
            logger.error(
                "events could not be stored", [("error", "\(failedError)"), ("requests", "\(failed)")])
            status.withLock {
                $0.writable = false
                $0.lastError = "\(failedError)"
            }
        }
        metrics?.recordCommit(.init(seconds: seconds, batches: written.count, events: events), batches: written)
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
        // Before the answers, unlike the writes': a client told its events are deleted must find nothing that
        // was derived from them (a violations page made ahead), and deletes are rare.
        for workspace in deleted { publish(.eventsDeleted(workspace: workspace)) }
        for (index, job) in group.enumerated() {
            let outcome = outcomes.flatMap { outcomes -> Result<StorageChangeOutcome, StorageError> in
                if case .failed(let error) = outcomes[index] { return .failure(error) }
                return .success(outcomes[index])
            }
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
        // After the answers: what listens costs an acknowledgement nothing.
        if !written.isEmpty {
            publish(.eventsStored(StoredEvents(batches: written.map { StoredEvents.Batch(batch: $0.0, result: $0.1) })))
        }
        // After the answers, after every commit: under steady load the writer is never idle, and upkeep kept for
        // an idle moment left the write-ahead log to the commits' own checkpoints (SQLiteStorage).
        if (try? outcomes.get()) != nil {
            do throws(StorageError) {
                try storage.maintainAfterCommit()
            } catch {
                logger.warning("storage upkeep after a commit failed", [("error", "\(error)")])
            }
        }
    }

    private static let mismatch = StorageError(.failed, "the storage answered a change with another kind of outcome")
}
