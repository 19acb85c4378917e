import GronaMock
import GronaMockPlatform

/// Copies the write-ahead log back into the database on a thread and a connection of its own, so that the
/// writer never waits for it.
///
/// A checkpoint reads the log, writes its pages into the database file and syncs both files: a few
/// milliseconds on this machine's disk, during which a writer that ran it itself could commit nothing, and
/// every batch that arrived meanwhile waited. Measured with `grona-mock load` at half the peak, those waits
/// were what lay between the events endpoint's median and its p99 (issue 14). In WAL mode a PASSIVE
/// checkpoint on another connection runs beside the writer's commits (https://sqlite.org/wal.html#ckpt):
/// it copies the frames committed when it began, and the writer starts the log over at its first commit
/// after a checkpoint that copied every frame (with no reader still on the log).
///
/// Under steady load the writer always has frames newer than a copy, so the log starts over only in the
/// COMMIT that passes `WriteAheadLogLimits.commitPages` (`grona_sqlite3_record_wal_pages`) and copies the
/// rest itself; this thread, asked after every commit, leaves it little to copy. While this thread holds the
/// checkpoint lock, that one returns at once (PASSIVE never waits), so the writer still never waits here.
///
/// `@unchecked Sendable` is sound because `connection` is used on the checkpoint thread only, and `phase`
/// is behind its lock.
final class Checkpointer: @unchecked Sendable {
    /// Where the checkpoint thread stands. `request` moves idle to requested, or a running checkpoint to
    /// running-again (so a request made while one runs is not lost); the thread moves requested to running,
    /// and running back to idle, or running-again to requested.
    enum Phase: Equatable {
        case idle
        case requested
        case running
        case runningAndRequested

        /// The phase after a request.
        var requested: Phase {
            switch self {
            case .idle, .requested: .requested
            case .running, .runningAndRequested: .runningAndRequested
            }
        }

        /// The phase after a checkpoint finished.
        var finished: Phase { self == .runningAndRequested ? .requested : .idle }
    }

    private let connection: SQLiteConnection
    private let phase = Mutex(Phase.idle)
    private let worker = WorkerThread(name: "grona-sqlite-checkpoint")
    private let completed = Atomic<Int>(0)
    /// Called on the checkpoint thread before each checkpoint: tests hold it there to show that commits
    /// go on meanwhile.
    private let beforeCheckpoint: @Sendable () -> Void

    /// Opens the checkpoint's own connection to the database at `path` and starts its thread.
    init(path: String, beforeCheckpoint: @escaping @Sendable () -> Void = {}) throws(SQLiteError) {
        connection = try SQLiteConnection(path: path)
        self.beforeCheckpoint = beforeCheckpoint
        worker.start { [self] in run() }
    }

    /// Asks for a checkpoint; never waits.
    func request() {
        phase.withLock { $0 = $0.requested }
        worker.wake()
    }

    /// True when no checkpoint is asked for or running.
    var isIdle: Bool { phase.withLock { $0 == .idle } }

    /// Checkpoints completed so far (for tests and the curious).
    var checkpoints: Int { completed.load(ordering: .acquiring) }

    /// Stops the thread, after the checkpoint running now if any.
    func stop() { worker.stop() }

    private func run() {
        // Copying back is background work: under load on two cores the writer and the event loops come first.
        // With a nice value of 10 here the events p99 at half the fleet's peak was 5.8 ms against 7.6 (medians
        // of six interleaved runs each; bench/README.md), and the log still started over in the writer's commits.
        LoopThread.yieldToOthers()
        while worker.sleep(upTo: nil) {
            while takeRequest() {
                beforeCheckpoint()
                // A failure (the database closed under it, a disk error) leaves the log to the next request
                // and to SQLite's own checkpoint in the writer's commits; nothing here can lose a commit.
                try? connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
                completed.add(1, ordering: .releasing)
                phase.withLock { $0 = $0.finished }
            }
        }
    }

    /// Moves a requested checkpoint to running; false when none is asked for.
    private func takeRequest() -> Bool {
        phase.withLock { phase in
            guard phase == .requested else { return false }
            phase = .running
            return true
        }
    }
}
