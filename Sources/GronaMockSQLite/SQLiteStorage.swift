import GronaMock
import GronaMockPlatform

/// `GronaStorage` on one SQLite file: the default backend, for one process.
///
/// One writing connection, taken by the engine's writer thread and by revision writes, and a few reading
/// connections: in WAL mode readers wait neither for the writer nor for each other, so a long scan does not
/// hold up a listing or a commit. `:memory:` (or any in-memory name) keeps everything on the one connection.
public final class SQLiteStorage: GronaStorage {
    let database: Database
    /// How many events in the tally make the writer fold it into `campaign_event_counts` after a commit.
    let campaignCountsFold: Int64
    /// The block of sequence numbers a running count is kept by (`count(matching:continuing:)`).
    let countBlockSize: Int64
    static let standardCountBlockSize: Int64 = 1 << 16
    /// The campaign counts of the events past the fold mark; used under the writing connection's lock only.
    let tally = Mutex(CampaignTally())
    /// The virtual machine steps of every `scanEvents` statement so far: the rows the scans examined, skipped
    /// ones included, so a test can bound a scan's work without timing it.
    package let scanSteps = Atomic<Int>(0)

    /// Opens or creates the database at `path` and brings its schema up to date; a database from a newer
    /// grona-mock is refused (`StorageError.Kind.schemaTooNew`).
    public init(path: String, readers: Int = 4) throws(StorageError) {
        campaignCountsFold = Self.standardCampaignCountsFold
        countBlockSize = Self.standardCountBlockSize
        do {
            database = try Database(path: path, readers: readers)
        } catch {
            throw StorageError(error)
        }
    }

    /// For tests: the log's limits, and `beforeCheckpoint`, which runs on the checkpoint thread before each
    /// checkpoint.
    init(
        path: String, logLimits: WriteAheadLogLimits = .standard,
        campaignCountsFold: Int64 = standardCampaignCountsFold, countBlockSize: Int64 = standardCountBlockSize,
        beforeCheckpoint: @escaping @Sendable () -> Void = {}
    ) throws(StorageError) {
        self.campaignCountsFold = campaignCountsFold
        self.countBlockSize = max(1, countBlockSize)
        do {
            database = try Database(path: path, logLimits: logLimits, beforeCheckpoint: beforeCheckpoint)
        } catch {
            throw StorageError(error)
        }
    }

    /// The linked SQLite's version, for `--version`.
    public static var libraryVersion: String { SQLiteConnection.libraryVersion }

    public var location: String { database.path }

    public func interruptReads() { database.interruptReads() }

    public func bytesUsed() -> Int64? {
        let pages = try? database.withReader { connection throws(SQLiteError) in
            try connection.scalarText("SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()")
        }
        guard let pages = pages.flatMap({ $0 }).flatMap({ Int64($0) }) else { return nil }
        return pages + (FileSystem.size(database.path + "-wal") ?? 0)
    }

    /// Runs an SQLite step, turning its failure into the engine's error.
    func run<T>(_ body: () throws(SQLiteError) -> T) throws(StorageError) -> T {
        do {
            return try body()
        } catch {
            throw StorageError(error)
        }
    }

    // MARK: - Writing

    public func commit(_ changes: [StorageChange]) throws(StorageError) -> [StorageChangeOutcome] {
        try run { () throws(SQLiteError) in
            try database.withConnection { connection throws(SQLiteError) in
                try tally.withLock { tally throws(SQLiteError) in
                    try connection.execute("BEGIN IMMEDIATE")
                    do throws(SQLiteError) {
                        var outcomes: [StorageChangeOutcome] = []
                        outcomes.reserveCapacity(changes.count)
                        for change in changes {
                            switch change {
                            case .batch(let batch):
                                outcomes.append(.batch(try Self.write(batch, connection, tally: &tally)))
                            case .deleteEvents(let workspaceKey):
                                outcomes.append(.deleted(events: try Self.delete(workspaceKey, connection)))
                                tally.remove(workspace: workspaceKey)
                            case .probe:
                                try connection.cached(Self.probeSQL).run([.integer(Int64(changes.count))])
                                outcomes.append(.probed)
                            }
                        }
                        try connection.execute("COMMIT")
                        return outcomes
                    } catch {
                        // A failed COMMIT leaves the transaction open: roll it back, or the next BEGIN is refused.
                        try? connection.execute("ROLLBACK")
                        // The tally may hold events that were rolled back: the next fold counts from the table.
                        tally.isValid = false
                        throw error
                    }
                }
            }
        }
    }

    /// Folds the events stored since the last fold into the campaign counts once there are
    /// `campaignCountsFold` of them (`SQLiteStorage+CampaignCounts`), then asks the checkpoint thread
    /// (`Checkpointer`) to copy the write-ahead log back once it passed `WriteAheadLogLimits.requestPages`, and
    /// returns at once: the copy runs on a connection of its own while the writer goes on committing, so that
    /// the COMMIT that reaches `commitPages` has only the rest to copy.
    public func maintainAfterCommit() throws(StorageError) {
        let pages = try run { () throws(SQLiteError) in
            try database.withConnection { connection throws(SQLiteError) in
                try tally.withLock { tally throws(SQLiteError) in
                    try Self.foldCampaignCounts(&tally, atLeast: campaignCountsFold, connection)
                }
                return connection.writeAheadLogPages
            }
        }
        guard let checkpointer = database.checkpointer else { return }
        if pages >= database.logLimits.requestPages { checkpointer.request() }
    }

    public func eventCount() throws(StorageError) -> Int {
        try run { () throws(SQLiteError) in
            try database.withConnection { connection throws(SQLiteError) in
                Int(try connection.scalarText("SELECT count(*) FROM events") ?? "0") ?? 0
            }
        }
    }

    public func dropOldestEvents(_ count: Int, keepingRejected: Int) throws(StorageError) {
        guard count > 0 else { return }
        try run { () throws(SQLiteError) in
            try database.withConnection { connection throws(SQLiteError) in
                // Every event to drop must be in the table's counts, to be taken off them there.
                try tally.withLock { tally throws(SQLiteError) in
                    try Self.foldCampaignCounts(&tally, atLeast: 0, connection)
                }
                let cutoff = try connection.cached("SELECT seq FROM events ORDER BY seq LIMIT 1 OFFSET ?")
                try cutoff.bind([.integer(Int64(count - 1))])
                guard try cutoff.step() else { return }
                let last = cutoff.int64(0)
                cutoff.reset()
                // One transaction, so a crash cannot leave purchase treatments without their event.
                try connection.execute("BEGIN IMMEDIATE")
                do throws(SQLiteError) {
                    try Self.uncountCampaignEvents(through: last, connection)
                    // No deletion generation: only the oldest go, which a running count sees as its `oldest`.
                    try connection.cached("DELETE FROM events WHERE seq <= ?").run([.integer(last)])
                    try connection.cached(Self.clampFoldedSQL).run()
                    try connection.cached("DELETE FROM purchase_treatments WHERE event_seq <= ?").run([.integer(last)])
                    try connection.cached(
                        "DELETE FROM rejected_events WHERE seq <= (SELECT max(seq) FROM rejected_events) - ?"
                    ).run([.integer(Int64(keepingRejected))])
                    try connection.execute("COMMIT")
                } catch {
                    try? connection.execute("ROLLBACK")
                    throw error
                }
            }
        }
    }

    private static let probeSQL: StaticString = "INSERT OR REPLACE INTO storage_probe (id, writes) VALUES (1, ?)"

    private static func delete(_ workspaceKey: String?, _ connection: SQLiteConnection) throws(SQLiteError) -> Int {
        let condition = workspaceKey == nil ? "" : " WHERE workspace_key = ?"
        let values: [SQLiteValue] = workspaceKey.map { [.text($0)] } ?? []
        try connection.prepare("DELETE FROM purchase_treatments" + condition).run(values)
        try connection.prepare("DELETE FROM rejected_events" + condition).run(values)
        try connection.prepare("DELETE FROM campaign_event_counts" + condition).run(values)
        try connection.prepare("DELETE FROM events" + condition).run(values)
        let deleted = connection.changes
        try connection.cached(clampFoldedSQL).run()
        try connection.cached(nextDeletionGenerationSQL).run()
        return deleted
    }

    /// Every transaction that deletes events moves the generation on, so that a running count taken before it
    /// is not continued (`count(matching:continuing:)`). It lives in the file, so a deletion by another
    /// process counts too.
    private static let nextDeletionGenerationSQL: StaticString =
        "UPDATE event_deletions SET generation = generation + 1"
    static let deletionGenerationSQL: StaticString = "SELECT generation FROM event_deletions"
}

extension SQLiteValue {
    /// Text, or NULL when absent.
    static func optional(_ text: String?) -> SQLiteValue { text.map(SQLiteValue.text) ?? .null }
}
