import GronaMock
import GronaMockPlatform

/// Grants this instance issued, on their way to `issued_grants` (issue 15). The grants endpoint answers on
/// an event loop, which must never wait for the database: `submit` only appends to a queue, and a thread of
/// its own writes it in batches, each one statement and one transaction.
///
/// Bounded: past `limit` entries waiting (the database down during a load test), new ones are dropped with
/// a warning rather than held without end; another instance then reports their offers as shown without a
/// grant. A batch that fails stays at the head and is tried again after a pause that doubles from 100 ms to
/// 2 s, as `PostgresPool` opens a connection again.
final class PostgresGrantQueue: Sendable {
    static let limit = 100_000
    static let batchSize = 1_000

    private struct Pending {
        var entries: [GrantLog.Issued] = []
        /// Dropped since the queue last had room, for one warning when it fills and one line when it drains.
        var dropped = 0
    }

    private let pending = Mutex(Pending())
    private let worker = WorkerThread(name: "grona-grants")
    private let logger: Logger

    /// `write` stores one batch; it runs on the queue's thread only.
    init(logger: Logger, write: @escaping @Sendable ([GrantLog.Issued]) throws(StorageError) -> Void) {
        self.logger = logger
        worker.start { [self] in run(write) }
    }

    /// Queues `entries`; never waits for the database.
    func submit(_ entries: [GrantLog.Issued]) {
        guard !entries.isEmpty else { return }
        let firstDrop = pending.withLock { pending -> Bool in
            guard pending.entries.count <= Self.limit - entries.count else {
                defer { pending.dropped += entries.count }
                return pending.dropped == 0
            }
            pending.entries.append(contentsOf: entries)
            return false
        }
        if firstDrop {
            logger.warning(
                "grants are issued faster than they can be shared; dropping them until the queue drains",
                [("queued", Self.limit)])
        }
        worker.wake()
    }

    /// Writes what is queued (one attempt per batch), then stops the thread and waits for it.
    func stop() { worker.stop() }

    private func run(_ write: @Sendable ([GrantLog.Issued]) throws(StorageError) -> Void) {
        var pause: Duration = .zero
        var reported = false
        while true {
            let running = worker.sleep(upTo: pause > .zero ? pause : nil)
            while let batch = nextBatch() {
                do {
                    try write(batch)
                } catch {
                    if !reported {
                        logger.warning("issued grants could not be shared; retrying", [("error", "\(error)")])
                        reported = true
                    }
                    pause = pause == .zero ? .milliseconds(100) : min(pause * 2, .seconds(2))
                    break
                }
                written(batch.count)
                if reported { logger.info("issued grants are shared again", []) }
                (pause, reported) = (.zero, false)
            }
            if !running { return }
        }
    }

    /// The oldest entries queued, left in the queue until `written` says they are stored.
    private func nextBatch() -> [GrantLog.Issued]? {
        pending.withLock { pending in
            pending.entries.isEmpty ? nil : Array(pending.entries.prefix(Self.batchSize))
        }
    }

    private func written(_ count: Int) {
        let dropped = pending.withLock { pending -> Int in
            pending.entries.removeFirst(min(count, pending.entries.count))
            guard pending.entries.isEmpty else { return 0 }
            defer { pending.dropped = 0 }
            return pending.dropped
        }
        if dropped > 0 {
            logger.warning("the grants queue drained; grants were dropped meanwhile", [("dropped", dropped)])
        }
    }
}
