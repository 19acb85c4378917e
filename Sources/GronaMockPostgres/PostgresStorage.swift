import Dispatch
import GronaMock
import GronaMockPlatform

/// `GronaStorage` on PostgreSQL, through libpq: for several grona-mock instances on one shared database, or a
/// team that already runs PostgreSQL. The same behaviour as `SQLiteStorage`, checked by the same suite.
///
/// One writing connection, taken by the engine's writer thread (one transaction per group commit, with
/// `synchronous_commit` left on: a 200 means committed), by revisions and upkeep; a few reading connections
/// for the inspection API. A connection that breaks is opened again on a later call, after a pause; until
/// then calls fail with `StorageError.Kind.unavailable` (a 503), never a crash.
public final class PostgresStorage: GronaStorage {
    let pool: PostgresPool
    /// The fewest events a group needs to be written side by side (`GroupHalves`); `Int.max` for never.
    let sideBySideRows: Int
    /// Where the second half of a group is written while the writer thread writes the first.
    let sideQueue = DispatchQueue(label: "grona-postgres-side-writer")
    /// Groups written as two halves side by side, for tests.
    let groupsSideBySide = Atomic<Int>(0)
    /// Whether another instance writes events too (then groups are written whole).
    let sequenceWatch = Mutex(SequenceWatch())

    /// Connects to the database at `url` (`postgres://` or `postgresql://`, libpq's URL form) and brings
    /// its schema up to date; a database from a newer grona-mock is refused (`.schemaTooNew`).
    public convenience init(url: String, readers: Int = 4) throws(StorageError) {
        try self.init(url: url, readers: readers, sideBySideRows: GroupHalves.standardMinimumRows)
    }

    /// With the fewest events a group needs to be written side by side (tests make it small, or `Int.max`).
    init(url: String, readers: Int, sideBySideRows: Int) throws(StorageError) {
        self.sideBySideRows = sideBySideRows
        guard let parsed = PostgresURL(url) else {
            throw StorageError(.failed, "a PostgreSQL store is a postgres:// or postgresql:// URL")
        }
        if let problem = parsed.problem { throw StorageError(.failed, "\(parsed.description): \(problem)") }
        pool = PostgresPool(url: parsed, readers: readers)
        try run { () throws(PostgresError) in
            try pool.withWriter { connection throws(PostgresError) in
                try Schema.migrate(connection)
            }
        }
    }

    /// True when `url` names a PostgreSQL database (`postgres://` or `postgresql://`), for a command line
    /// that chooses the backend by it.
    public static func accepts(_ url: String) -> Bool { PostgresURL.names(url) }

    /// The linked libpq's version, for `--version`.
    public static var libraryVersion: String { PostgresConnection.libraryVersion }

    public var location: String { pool.url.description }

    public func interruptReads() { pool.interruptReads() }

    public func bytesUsed() -> Int64? {
        try? pool.withReader { connection throws(PostgresError) in
            try connection.query("SELECT pg_database_size(current_database())").int64(0, 0)
        }
    }

    /// Runs a PostgreSQL step, turning its failure into the engine's error.
    func run<T>(_ body: () throws(PostgresError) -> T) throws(StorageError) -> T {
        do {
            return try body()
        } catch {
            throw StorageError(error)
        }
    }

    // MARK: - Writing

    /// One transaction per group; its events are copied, and a group that meets a stored duplicate (or a
    /// deadlock with another instance copying the same ids in another order) is rolled back and written
    /// again skipping what is stored, alone (`EventWriteMethod`, `ArrivalOrder`): only the committed
    /// transaction's outcomes are returned, so nothing is acknowledged before its commit.
    ///
    /// A large group of event batches alone is written as two transactions side by side (`GroupHalves`).
    public func commit(_ changes: [StorageChange]) throws(StorageError) -> [StorageChangeOutcome] {
        let start = SequenceStart()
        defer { sequenceWatch.withLock { $0.wrote(changes, start: start.value, now: .now) } }
        if !sequenceWatch.withLock({ $0.othersWriting(now: .now) }),
            let halves = GroupHalves(changes, minimumRows: sideBySideRows)
        {
            return try commit(halves, start: start)
        }
        return try commit(changes, onSideWriter: false, start: start)
    }

    /// `changes` in one transaction, on the writing connection or the second one; `start` is told the events
    /// sequence's last value before its rows.
    func commit(_ changes: [StorageChange], onSideWriter: Bool, start: SequenceStart) throws(StorageError)
        -> [StorageChangeOutcome]
    {
        try run { () throws(PostgresError) in
            let write = { (connection: PostgresConnection) throws(PostgresError) -> [StorageChangeOutcome] in
                do throws(PostgresError) {
                    return try connection.transaction { () throws(PostgresError) in
                        try Self.apply(changes, connection, by: .copy, start: start)
                    }
                } catch {
                    guard Self.retriedSkippingStored.contains(error.sqlState ?? ""), !error.connectionLost else {
                        throw error
                    }
                    return try connection.transaction { () throws(PostgresError) in
                        try Self.apply(changes, connection, by: .skippingStored, start: start)
                    }
                }
            }
            return onSideWriter ? try pool.withSideWriter(write) : try pool.withWriter(write)
        }
    }

    /// What sends a copied group to `.skippingStored`: a stored duplicate (unique_violation), or two
    /// instances copying the same new ids in crossing orders, each waiting on the other's row
    /// (deadlock_detected, which PostgreSQL resolves by failing one of them after `deadlock_timeout`).
    static let retriedSkippingStored: Set<String> = [uniqueViolation, "40P01"]

    /// Applies the changes in order; consecutive batches are written together, as one run of inserts.
    private static func apply(
        _ changes: [StorageChange], _ connection: PostgresConnection, by method: EventWriteMethod,
        start: SequenceStart
    ) throws(PostgresError) -> [StorageChangeOutcome] {
        if let last = try ArrivalOrder.enter(changes, connection, by: method) { start.saw(last) }
        var outcomes: [StorageChangeOutcome] = []
        outcomes.reserveCapacity(changes.count)
        var pending: [EventBatch] = []
        func flush() throws(PostgresError) {
            guard !pending.isEmpty else { return }
            outcomes += try write(pending, connection, by: method).map(StorageChangeOutcome.batch)
            pending = []
        }
        for change in changes {
            switch change {
            case .batch(let batch):
                pending.append(batch)
            case .deleteEvents(let workspaceKey):
                try flush()
                outcomes.append(.deleted(events: try delete(workspaceKey, connection)))
            case .probe:
                try flush()
                var binds = PostgresBinds()
                binds.append(Int64(changes.count))
                try connection.run(
                    prepared: "probe",
                    "INSERT INTO storage_probe (id, writes) VALUES (1, $1) "
                        + "ON CONFLICT (id) DO UPDATE SET writes = excluded.writes", binds)
                outcomes.append(.probed)
            }
        }
        try flush()
        return outcomes
    }

    /// PostgreSQL has no write-ahead log to copy back by hand: its checkpointer and autovacuum do the upkeep.
    public func maintainAfterCommit() throws(StorageError) {}

    public func eventCount() throws(StorageError) -> Int {
        try run { () throws(PostgresError) in
            try pool.withWriter { connection throws(PostgresError) in
                Int(try connection.query("SELECT count(*) FROM events").int64(0, 0))
            }
        }
    }

    public func dropOldestEvents(_ count: Int, keepingRejected: Int) throws(StorageError) {
        guard count > 0 else { return }
        var oldest = PostgresBinds()
        oldest.append(Int64(count - 1))
        var kept = PostgresBinds()
        kept.append(Int64(max(0, keepingRejected)))
        try run { () throws(PostgresError) in
            try pool.withWriter { connection throws(PostgresError) in
                // One transaction, so a crash cannot leave purchase treatments without their event.
                try connection.transaction { () throws(PostgresError) in
                    try connection.query(
                        """
                        WITH cutoff AS (SELECT seq FROM events ORDER BY seq LIMIT 1 OFFSET $1),
                        treatments AS (DELETE FROM purchase_treatments WHERE event_seq <= (SELECT seq FROM cutoff))
                        DELETE FROM events WHERE seq <= (SELECT seq FROM cutoff)
                        """, oldest)
                    // The newest `keepingRejected` stay: counted in rows, since a sequence can skip numbers.
                    try connection.query(
                        """
                        DELETE FROM rejected_events WHERE seq <=
                            (SELECT seq FROM rejected_events ORDER BY seq DESC LIMIT 1 OFFSET $1)
                        """, kept)
                }
            }
        }
    }

    private static func delete(_ workspaceKey: String?, _ connection: PostgresConnection) throws(PostgresError) -> Int {
        var binds = PostgresBinds()
        var condition = ""
        if let workspaceKey { condition = " WHERE workspace_key = " + binds.placeholder(workspaceKey) }
        try connection.query("DELETE FROM purchase_treatments" + condition, binds)
        try connection.query("DELETE FROM rejected_events" + condition, binds)
        return try connection.query("DELETE FROM events" + condition, binds).affectedRows
    }
}
