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
/// not settle. The announcements are two-key advisory locks in a space of their own (`announcementSpace`, the
/// sequence number modulo 2^31 - 1 as the second key), so no other advisory lock of this database, grona-mock's
/// or another application's, is ever taken for one; two numbers that share a key only make a reader wait a
/// little longer, as a group in another schema of the same database does.
///
/// A reader waits at most `settleTimeout` for the groups in flight (a group takes milliseconds; one whose
/// instance's host vanished mid-group holds its lock until PostgreSQL notices the lost connection): past it the
/// read fails as the store being unavailable (a 503 with `Retry-After`, SQLSTATE 55P03), never hangs.
///
/// The argument needs the sequence to hand out numbers one at a time (`CACHE 1`, PostgreSQL's default): with
/// a cache, `pg_sequence_last_value` names the end of a session's cached block, and a group could take numbers
/// below a reader's `L` after announcing above it. `checkSequence` refuses to start on a database where an
/// operator changed it.
enum ArrivalOrder {
    /// The advisory lock (ASCII "grona-sq"): shared by groups that copy, exclusive for a group that must
    /// insert alone. Held to the end of the transaction.
    static let arrivalLock: Int64 = 0x6772_6F6E_612D_7371

    /// The first key of every announcement (ASCII "gseq"), whose second key is the group's lowest possible
    /// sequence number modulo 2^31 - 1.
    static let announcementSpace: Int32 = 0x6773_6571

    /// How long a reader waits for the groups in flight before it fails as unavailable.
    static let settleTimeout = "15s"

    /// Takes the arrival lock (shared for a copied group without rejections, exclusive otherwise), announces
    /// the group's lowest possible sequence, and tells the other instances' long-polls which workspaces get
    /// events (`PostgresRuntime.Channel.events`): one round trip, before the rows. PostgreSQL sends a
    /// notification at COMMIT, once the events can be read, and never for a group rolled back.
    ///
    /// Answers the events sequence's last value read after the locks, before the group's first row (nil when the
    /// group has no batch): what `SequenceWatch` compares from group to group.
    @discardableResult
    static func enter(
        _ changes: [StorageChange], _ connection: PostgresConnection, by method: EventWriteMethod
    ) throws(PostgresError) -> Int64? {
        var workspaces: Set<String> = []
        var rejects = false
        for change in changes {
            guard case .batch(let batch) = change else { continue }
            workspaces.insert(batch.workspaceKey)
            rejects = rejects || !batch.rejected.isEmpty
        }
        guard !workspaces.isEmpty else { return nil }
        let alone = method == .skippingStored || rejects
        // Workspace keys are short and plain ([a-z0-9-]); a payload past PostgreSQL's 8000 bytes says "all".
        let listed = workspaces.sorted().joined(separator: ",")
        var binds = PostgresBinds()
        binds.append(arrivalLock)
        binds.append(listed.utf8.count < 7_000 ? listed : "*")
        let result = try connection.run(
            prepared: alone ? "arrival_alone" : "arrival_shared",
            """
            SELECT pg_advisory_xact_lock\(alone ? "" : "_shared")($1),
                pg_advisory_xact_lock_shared(
                    \(announcementSpace),
                    ((coalesce(pg_sequence_last_value(\(eventSequence)), 0) + 1) % 2147483647)::integer),
                pg_notify('\(PostgresRuntime.Channel.events.rawValue)', convert_from($2, 'UTF8')),
                coalesce(pg_sequence_last_value(\(eventSequence)), 0)
            """, binds)
        return result.rowCount == 1 ? result.int64(0, 3) : nil
    }

    /// The events' identity sequence, in whichever schema `events` is found.
    private static let eventSequence = "pg_get_serial_sequence('events', 'seq')::regclass"

    /// The settling statement: the sequence's last value read first, and the reader's lock timeout set for the
    /// rest of the statement (a materialized CTE, scanned before the correlated subquery that reads `pg_locks`
    /// runs), then an exclusive lock on every announcement of this database, in ascending order, each granted
    /// once that key's groups have ended and released when the statement's transaction ends.
    static let settleSQL = """
        WITH last AS MATERIALIZED (
            SELECT coalesce(pg_sequence_last_value(\(eventSequence)), 0) AS seq,
                set_config('lock_timeout', '\(settleTimeout)', true) AS timeout)
        SELECT last.seq, (
            SELECT count(*) FROM (
                SELECT pg_advisory_xact_lock(\(announcementSpace), announced.key) FROM (
                    SELECT DISTINCT l.objid::bigint::integer AS key FROM pg_locks l
                    WHERE l.locktype = 'advisory' AND l.objsubid = 2 AND l.mode = 'ShareLock'
                        AND l.classid = \(announcementSpace)
                        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                        AND last.seq IS NOT NULL AND last.timeout IS NOT NULL
                    ORDER BY key) announced) waited)
        FROM last
        """

    /// The last sequence that no group still to commit can hold: every event up to it is committed (or was
    /// rolled back), and visible to any statement that starts after this one returns.
    static func settled(_ connection: PostgresConnection) throws(PostgresError) -> Int64 {
        try connection.run(prepared: "events_settled", settleSQL, PostgresBinds()).int64(0, 0)
    }

    /// Refuses a database whose events sequence hands out more than one number at a time (`CACHE` above 1),
    /// on which readers could pass an event still to commit (see above).
    static func checkSequence(_ connection: PostgresConnection) throws(PostgresError) {
        let found = try connection.query(
            "SELECT seqcache FROM pg_sequence WHERE seqrelid = \(eventSequence)")
        guard found.rowCount == 1 else { return }
        let cache = found.int64(0, 0)
        guard cache != 1 else { return }
        throw PostgresError(
            sqlState: nil,
            message: "the events sequence caches \(cache) numbers a session (ALTER SEQUENCE ... CACHE); readers "
                + "on several instances need CACHE 1 to never pass an event still to commit: ALTER SEQUENCE "
                + "\"events_seq_seq\" CACHE 1, or another --store database",
            connectionLost: false)
    }
}
