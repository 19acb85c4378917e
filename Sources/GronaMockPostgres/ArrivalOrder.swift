import GronaMock

/// Why a reader that paged past sequence N never later finds an event below N, with several instances
/// inserting events at once (issue 32).
///
/// `seq` comes from a sequence, which hands out numbers as rows are inserted, not as they commit: instance A
/// can take 100, instance B 101, and B commit first. Until issue 32 every group held one exclusive advisory
/// lock from before its rows to its COMMIT, so groups inserted one at a time and sequence order was commit
/// order; with two instances the second then only queued behind the first (two were slower than one).
///
/// Now groups insert side by side and announce what they may still commit. Before its first row, a group
/// takes a shared advisory lock keyed by the sequence's next value (`pg_sequence_last_value` + 1): every
/// number it will get is at least that, and the lock is visible to every session in `pg_locks` until the
/// group commits or rolls back. A reader first *settles*: it reads the sequence's last value `L`, then waits
/// for every group announced at that moment to end (it takes each announced key exclusively, which waits
/// for the shared holders, and lets go at once), and only then runs its query, in a later statement (so a
/// later snapshot), keeping to `seq <= L`. Every number up to `L` then belongs to a committed or a rolled
/// back group: a group that took one had announced before, so it was listed in `pg_locks` and waited for;
/// a group that announced after the reader read `pg_locks` takes numbers above `L`.
///
/// So a cursor never passes an event still to commit, and an acknowledged event is in every read that
/// starts after its acknowledgement (its number was taken before `L` was read). What it costs: a reader
/// waits for the groups in flight when it starts (milliseconds: one group commit), one short statement per
/// page. The exclusive form of the arrival lock remains for the groups that must run alone: those
/// rewritten `.skippingStored` (no deadlock can form around them) and those carrying rejected events
/// (`rejected_events` is paged by its own sequence, which no announcement covers). Measured with one and two
/// instances against main in bench/README.md ("Issue 32: groups side by side").
///
/// Every instance on one database must run this version or a later one: an earlier instance's readers do
/// not settle. The announcement keys are sequence numbers, far below the other advisory locks' keys (ASCII
/// tags, about 7.4e18); a group in another schema of the same database only makes this one's readers wait
/// for it too.
enum ArrivalOrder {
    /// The advisory lock (ASCII "grona-sq"): shared by groups that copy, exclusive for a group that must
    /// insert alone. Held to the end of the transaction.
    static let arrivalLock: Int64 = 0x6772_6F6E_612D_7371

    /// Announcement keys are below this; the tags used as other advisory locks' keys are far above it.
    static let announcementCeiling: Int64 = 1 << 62

    /// Takes the arrival lock (shared for a copied group without rejections, exclusive otherwise), announces
    /// the group's lowest possible sequence, and tells the other instances' long-polls which workspaces get
    /// events (`PostgresRuntime.Channel.events`): one round trip, before the rows. PostgreSQL sends a
    /// notification at COMMIT, once the events can be read, and never for a group rolled back.
    static func enter(
        _ changes: [StorageChange], _ connection: PostgresConnection, by method: EventWriteMethod
    ) throws(PostgresError) {
        var workspaces: Set<String> = []
        var rejects = false
        for change in changes {
            guard case .batch(let batch) = change else { continue }
            workspaces.insert(batch.workspaceKey)
            rejects = rejects || !batch.rejected.isEmpty
        }
        guard !workspaces.isEmpty else { return }
        let alone = method == .skippingStored || rejects
        // Workspace keys are short and plain ([a-z0-9-]); a payload past PostgreSQL's 8000 bytes says "all".
        let listed = workspaces.sorted().joined(separator: ",")
        var binds = PostgresBinds()
        binds.append(arrivalLock)
        binds.append(listed.utf8.count < 7_000 ? listed : "*")
        try connection.run(
            prepared: alone ? "arrival_alone" : "arrival_shared",
            """
            SELECT pg_advisory_xact_lock\(alone ? "" : "_shared")($1),
                pg_advisory_xact_lock_shared(coalesce(pg_sequence_last_value(\(eventSequence)), 0) + 1),
                pg_notify('\(PostgresRuntime.Channel.events.rawValue)', convert_from($2, 'UTF8'))
            """, binds)
    }

    /// The events' identity sequence, in whichever schema `events` is found.
    private static let eventSequence = "pg_get_serial_sequence('events', 'seq')::regclass"

    /// The settling statement: the sequence's last value read first (a materialized CTE, scanned before the
    /// correlated subquery that reads `pg_locks` runs), then an exclusive lock on every announced key of this
    /// database, in ascending order, each granted once that key's groups have ended and released when the
    /// statement's transaction ends.
    static let settleSQL = """
        WITH last AS MATERIALIZED (SELECT coalesce(pg_sequence_last_value(\(eventSequence)), 0) AS seq)
        SELECT last.seq, (
            SELECT count(*) FROM (
                SELECT pg_advisory_xact_lock(announced.key) FROM (
                    SELECT DISTINCT (l.classid::bigint << 32) | l.objid::bigint AS key FROM pg_locks l
                    WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.mode = 'ShareLock'
                        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                        AND l.classid::bigint < \(announcementCeiling >> 32) AND last.seq IS NOT NULL
                    ORDER BY key) announced) waited)
        FROM last
        """

    /// The last sequence that no group still to commit can hold: every event up to it is committed (or was
    /// rolled back), and visible to any statement that starts after this one returns.
    static func settled(_ connection: PostgresConnection) throws(PostgresError) -> Int64 {
        try connection.run(prepared: "events_settled", settleSQL, PostgresBinds()).int64(0, 0)
    }
}
