import GronaMock

/// What `PostgresRuntime.follow` reads besides the grants: the run-time changes and the clock.
extension PostgresRuntime {
    /// The changes other instances made after `seq` (nil for a row this version cannot read), with every seq
    /// read, in order; from the last global reset on when `fromLastReset` (older rows no longer matter).
    func readChanges(
        after seq: Int64, fromLastReset: Bool, _ connection: PostgresConnection
    ) throws(PostgresError) -> [(Int64, RuntimeChange?)] {
        var start = seq
        if fromLastReset {
            let reset = try connection.query(
                "SELECT coalesce(max(seq), 0) FROM runtime_changes WHERE kind = 'reset'::bytea AND workspace_key IS NULL"
            )
            start = max(seq, reset.int64(0, 0) - 1)
        }
        var binds = PostgresBinds()
        binds.append(start)
        let rows = try connection.run(
            prepared: "changes_after",
            "SELECT seq, instance, kind, workspace_key, payload FROM runtime_changes WHERE seq > $1 ORDER BY seq",
            binds)
        var changes: [(Int64, RuntimeChange?)] = []
        for row in 0..<rows.rowCount {
            let seq = rows.int64(row, 0)
            guard rows.text(row, 1) != instance else {
                changes.append((seq, nil))
                continue
            }
            let kind = rows.text(row, 2) ?? ""
            let change = RuntimeChange(kind: kind, workspace: rows.text(row, 3), payload: rows.bytes(row, 4))
            if change == nil {
                logger.warning("a shared run-time change this version cannot read was skipped", [("seq", seq)])
            }
            changes.append((seq, change))
        }
        return changes
    }

    func readClock(
        newerThan version: Int64, _ connection: PostgresConnection
    ) throws(PostgresError) -> (Int64, ClockSetting)? {
        let row = try connection.query("SELECT version, offset_ms, frozen_at FROM runtime_clock WHERE id = 1")
        guard row.rowCount == 1, row.int64(0, 0) > version else { return nil }
        return (row.int64(0, 0), ClockSetting(offsetMilliseconds: row.int64(0, 1), frozenAt: row.optionalInt64(0, 2)))
    }

    /// On a tick (or after a reconnect), when a notification of stored events may have been missed: wakes
    /// the long-polls if events were stored since the last tick, and only then, so that waiters do not read
    /// the store twice a second for nothing. The settled sequence (`ArrivalOrder`) grows when any group
    /// commits, also one that committed after a group with later sequences (`max(seq)` would not).
    func wakeIfEventsStored(_ replica: RuntimeReplica) {
        do {
            let newest = try Self.run { () throws(PostgresError) in
                try pool.withReader { connection throws(PostgresError) in try ArrivalOrder.settled(connection) }
            }
            let grew = followed.withLock { followed in
                defer { followed.lastEventSequence = max(followed.lastEventSequence, newest) }
                return newest > followed.lastEventSequence
            }
            if grew { replica.eventsStored(["*"]) }
        } catch {
            // The next tick asks again; the waiters time out as usual meanwhile.
            replica.eventsStored(["*"])
        }
    }
}
