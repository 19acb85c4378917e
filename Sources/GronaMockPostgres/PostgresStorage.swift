import GronaMock

/// `GronaStorage` on PostgreSQL, through libpq: for several grona-mock instances on one shared database, or a
/// team that already runs PostgreSQL. The same behaviour as `SQLiteStorage`, checked by the same suite.
///
/// One writing connection, taken by the engine's writer thread (one transaction per group commit, with
/// `synchronous_commit` left on: a 200 means committed), by revisions and upkeep; a few reading connections
/// for the inspection API. A connection that breaks is opened again on a later call, after a pause; until
/// then calls fail with `StorageError.Kind.unavailable` (a 503), never a crash.
public final class PostgresStorage: GronaStorage {
    let pool: PostgresPool

    /// Connects to the database at `url` (`postgres://` or `postgresql://`, libpq's URL form) and brings
    /// its schema up to date; a database from a newer grona-mock is refused (`.schemaTooNew`).
    public init(url: String, readers: Int = 4) throws(StorageError) {
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

    /// The advisory lock every group commit that stores events takes (ASCII "grona-sq"). A sequence hands
    /// out numbers when rows are inserted, not when they commit: without it, an instance could commit seq
    /// 100 after another committed 101, and a reader that already paged past 101 would never see 100.
    /// Held to the end of the transaction, it makes sequence order commit order across instances, as the
    /// one writer makes it within one.
    static let arrivalLock: Int64 = 0x6772_6F6E_612D_7371

    /// One transaction per group; its events are copied, and a group that meets a stored duplicate is
    /// rolled back and written again skipping it (`EventWriteMethod`): only the committed transaction's
    /// outcomes are returned, so nothing is acknowledged before its commit.
    public func commit(_ changes: [StorageChange]) throws(StorageError) -> [StorageChangeOutcome] {
        try run { () throws(PostgresError) in
            try pool.withWriter { connection throws(PostgresError) in
                do throws(PostgresError) {
                    return try connection.transaction { () throws(PostgresError) in
                        try Self.apply(changes, connection, by: .copy)
                    }
                } catch {
                    guard error.sqlState == Self.uniqueViolation, !error.connectionLost else { throw error }
                    return try connection.transaction { () throws(PostgresError) in
                        try Self.apply(changes, connection, by: .skippingStored)
                    }
                }
            }
        }
    }

    /// Applies the changes in order; consecutive batches are written together, as one run of inserts.
    private static func apply(
        _ changes: [StorageChange], _ connection: PostgresConnection, by method: EventWriteMethod
    ) throws(PostgresError) -> [StorageChangeOutcome] {
        try lockAndNotify(changes, connection)
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

    /// Takes the arrival lock and tells the other instances' long-polls which workspaces get events
    /// (`PostgresRuntime.Channel.events`), in one round trip, before the rows. PostgreSQL sends a
    /// notification at COMMIT, once the events can be read, and never for a group rolled back, wherever it
    /// comes in the transaction; sent first, it leaves one round trip fewer in the time the lock is held,
    /// during which every other instance's group waits (issue 32).
    private static func lockAndNotify(_ changes: [StorageChange], _ connection: PostgresConnection)
        throws(PostgresError)
    {
        var workspaces: Set<String> = []
        for change in changes {
            if case .batch(let batch) = change { workspaces.insert(batch.workspaceKey) }
        }
        guard !workspaces.isEmpty else { return }
        // Workspace keys are short and plain ([a-z0-9-]); a payload past PostgreSQL's 8000 bytes says "all".
        let listed = workspaces.sorted().joined(separator: ",")
        var binds = PostgresBinds()
        binds.append(arrivalLock)
        binds.append(listed.utf8.count < 7_000 ? listed : "*")
        try connection.run(
            prepared: "arrival_lock_notify",
            "SELECT pg_advisory_xact_lock($1), "
                + "pg_notify('\(PostgresRuntime.Channel.events.rawValue)', convert_from($2, 'UTF8'))", binds)
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
