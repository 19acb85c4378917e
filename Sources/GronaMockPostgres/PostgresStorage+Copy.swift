import GronaMock

/// How a group commit's events reach the `events` table (issue 32).
///
/// Measured on PostgreSQL 15 (bench/README.md, "cluster.sh"): the earlier path, one `INSERT … SELECT FROM
/// unnest(…) ON CONFLICT DO NOTHING RETURNING`, cost the server markedly more per row than `COPY` of the same
/// rows: `ON CONFLICT` makes every row a speculative insertion (a token, and a second WAL record to confirm
/// it), `unnest` of 18 arrays materializes them in a tuple store first, and `RETURNING` sends back every
/// key. `COPY … FROM STDIN` in binary format into `events` itself is PostgreSQL's own bulk path; a COPY into
/// a staging table followed by `INSERT … SELECT … ON CONFLICT` keeps the speculative insertion and adds a
/// second write of every row (both measured slower than `COPY` into `events`); libpq's pipeline mode, not
/// tried, saves round trips, which are not the cost here (five per group of hundreds of events, on a local
/// socket), and cannot carry a `COPY`.
///
/// Duplicates are the exception (an SDK's retry of a batch whose answer it lost), so a group is first
/// written `.copy`: the unique index on workspace and eventID refuses a stored duplicate with SQLSTATE 23505,
/// the whole group is rolled back (nothing of it was acknowledged) and written again `.skippingStored`,
/// which names every duplicate exactly as before. Duplicates inside the group never reach the server: the
/// writer sets them aside first (`EventRun`). Across instances the unique index decides as before: an
/// instance copying a key another is committing waits for it, then fails over to `.skippingStored`. Since
/// groups of several instances copy side by side (`ArrivalOrder`), two copying the same new keys in crossing
/// orders can each wait on the other; PostgreSQL fails one (deadlock_detected), which fails over the same way,
/// and `.skippingStored` runs alone, so it cannot deadlock.
enum EventWriteMethod {
    /// `COPY … FROM STDIN (FORMAT binary)` straight into `events`; fails on a stored duplicate.
    case copy
    /// `INSERT … ON CONFLICT DO NOTHING RETURNING`: every stored duplicate is reported, none fails.
    case skippingStored
}

extension PostgresStorage {
    private static let copyEventsSQL = """
        COPY events (workspace_key, event_id, type, timestamp, received_at, corrected_timestamp, install_id,
            customer_id, session_id, visit_id, campaign_id, variant_id, arm, placement, demo, config_revision,
            total_minor, json) FROM STDIN (FORMAT binary)
        """

    /// A copied event's `seq` is not sent back: its treatments find it by the event's key, in the same
    /// transaction (purchases are few, and the unique index makes each a seek).
    private static let insertTreatmentsByKeySQL = """
        INSERT INTO purchase_treatments (event_seq, workspace_key, campaign_id, variant_id, placement, type,
            value_milli)
        SELECT e.seq, t.workspace_key, t.campaign_id, t.variant_id, t.placement, t.type, t.value_milli
        FROM unnest($1::bytea[], $2::bytea[], $3::bytea[], $4::bytea[], $5::bytea[], $6::bytea[], $7::bigint[])
            AS t(workspace_key, event_id, campaign_id, variant_id, placement, type, value_milli)
        JOIN events e ON e.workspace_key = t.workspace_key AND e.event_id = t.event_id
        """

    /// SQLSTATE unique_violation: what `.copy` meets on a stored duplicate.
    static let uniqueViolation = "23505"

    /// The size of the pieces the rows are sent in: small enough that the server starts on the first rows
    /// while the writer encodes the next (the two then run side by side on a multi-core machine), large
    /// enough that each `PQputCopyData` carries many rows.
    static let copyPiece = 64 * 1024

    /// Copies every row the run sends into `events`, encoding and sending as it admits them (`EventRun`),
    /// then their claimed treatments.
    static func copy(_ run: inout EventRun, _ connection: PostgresConnection) throws(PostgresError) {
        var treatments = TreatmentKeyColumns()
        try connection.copyIn(copyEventsSQL) { send in
            var rows = PostgresCopyRows(reservingBytes: copyPiece + 16 * 1024)
            for batch in run.batches.indices {
                let packed = run.batches[batch].accepted
                for position in packed.rows.indices where run.admit(batch, position) {
                    let row = packed.rows[position]
                    rows.append(row, of: packed)
                    for claimed in packed.treatments[row.treatments] {
                        treatments.append(claimed, of: row, in: packed)
                    }
                    if rows.bytes.count >= copyPiece, !send(rows.take()) { return }
                }
            }
            _ = send(rows.finish())
        }
        guard treatments.count > 0 else { return }
        let inserted = try connection.run(
            prepared: "insert_treatments_by_key", insertTreatmentsByKeySQL, treatments.binds)
        guard inserted.affectedRows == treatments.count else {
            // Cannot happen while the copy succeeded in this transaction; refused rather than half written.
            throw PostgresError(
                sqlState: nil,
                message: "\(inserted.affectedRows) of \(treatments.count) purchase treatments found their event",
                connectionLost: false)
        }
    }
}

extension PostgresCopyRows {
    /// One event, its 18 fields in `copyEventsSQL`'s order.
    fileprivate mutating func append(_ row: EventRows.Row, of rows: EventRows) {
        startRow(fields: 18)
        append(rows.slice(row.workspaceKey))
        append(rows.slice(row.eventID))
        append(rows.slice(row.type))
        append(row.timestamp)
        append(row.receivedAt)
        append(row.correctedTimestamp)
        append(rows.slice(row.installID))
        append(row.customerID, of: rows)
        append(row.sessionID, of: rows)
        append(row.visitID, of: rows)
        append(row.campaignID, of: rows)
        append(row.variantID, of: rows)
        append(row.arm, of: rows)
        append(row.placement, of: rows)
        append(row.demo)
        append(row.configRevision)
        append(row.totalMinor)
        append(rows.slice(row.json))
    }

    private mutating func append(_ field: EventRows.Field?, of rows: EventRows) {
        if let field { append(rows.slice(field)) } else { appendNull() }
    }
}

/// The purchase treatments' columns keyed by their event's workspace and eventID, in
/// `insertTreatmentsByKeySQL`'s order.
private struct TreatmentKeyColumns {
    private var text = (0..<6).map { _ in PostgresArray(of: .bytea) }
    private var value = PostgresArray(of: .int8)

    var count: Int { value.count }

    mutating func append(_ claimed: EventRows.Treatment, of row: EventRows.Row, in rows: EventRows) {
        let fields = [
            row.workspaceKey, row.eventID, claimed.campaignID, claimed.variantID, claimed.placement, claimed.type,
        ]
        for (column, field) in fields.enumerated() { text[column].append(rows.slice(field)) }
        value.append(claimed.valueMilli)
    }

    var binds: PostgresBinds {
        var binds = PostgresBinds()
        for column in text { binds.append(column) }
        binds.append(value)
        return binds
    }
}
