import GronaMock

/// `scanEvents` on PostgreSQL: keyset pages of `scanChunk` rows over `events_by_visit`, each a seek from the
/// last row handed over, so memory is one chunk whatever the workspace's size and a scan resumed deep in the
/// stream costs what one from the start does.
///
/// The order is `EventScan`'s: install, then visit with events without one first (indexed and ordered as
/// `coalesce(visit_id, '')`, see the schema), then sequence; bytea compares byte by byte, as SQLite's
/// default collation.
extension PostgresStorage {
    /// Rows per query: large enough that a scan of millions costs few round trips, small enough to hold.
    static let scanChunk = 1_000
    /// Rows of a scan's first query, doubling up to `scanChunk`: a violations page of a dense workspace stops
    /// after some 2,300 rows, and whole chunks of 1,000 read up to 1,000 past it (issue 32).
    static let firstScanChunk = 125

    public func scanEvents(_ scan: EventScan, _ body: (StoredEventColumns) -> Bool) throws(StorageError) {
        var start = scan.start
        var limit = Self.firstScanChunk
        while true {
            let rows = try scanChunk(scan, from: start, limit: limit)
            for row in rows {
                guard body(row) else { return }
            }
            // Sequences are at most `throughSequence`, so the next position inside a visit cannot overflow.
            guard rows.count == limit, let last = rows.last, last.sequence < Int64.max else { return }
            start = EventScanPosition(installID: last.installID, visitID: last.visitID, sequence: last.sequence + 1)
            limit = min(limit * 2, Self.scanChunk)
        }
    }

    /// One chunk of the scan from `start` (inclusive), at most `limit` rows.
    private func scanChunk(_ scan: EventScan, from start: EventScanPosition?, limit: Int) throws(StorageError)
        -> [StoredEventColumns]
    {
        var binds = PostgresBinds()
        var conditions = [
            "workspace_key = " + binds.placeholder(scan.workspace), "seq <= " + binds.placeholder(scan.throughSequence),
        ]
        if let installID = scan.installID { conditions.append("install_id = " + binds.placeholder(installID)) }
        if let start {
            // One row comparison on the index's columns: a seek, wherever the chunk starts in the install.
            conditions.append(
                "(install_id, coalesce(visit_id, ''::bytea), seq) >= (\(binds.placeholder(start.installID)), "
                    + "\(binds.placeholder(start.visitID ?? "")), "
                    + "\(binds.placeholder(start.sequence)))")
        }
        let sql = """
            SELECT seq, event_id, type, timestamp, received_at, corrected_timestamp, install_id, customer_id,
                visit_id, campaign_id, variant_id, arm, placement, demo, config_revision, json
            FROM events WHERE \(conditions.joined(separator: " AND "))
            ORDER BY install_id, coalesce(visit_id, ''::bytea), seq LIMIT \(limit)
            """
        return try run { () throws(PostgresError) in
            try pool.withReader { connection throws(PostgresError) in
                let result = try connection.query(sql, binds)
                return (0..<result.rowCount).map { row in
                    StoredEventColumns(
                        sequence: result.int64(row, 0), eventID: result.text(row, 1) ?? "",
                        type: result.text(row, 2) ?? "", timestamp: result.int64(row, 3),
                        receivedAt: result.int64(row, 4), correctedTimestamp: result.int64(row, 5),
                        installID: result.text(row, 6) ?? "", customerID: result.text(row, 7),
                        visitID: result.text(row, 8), campaignID: result.text(row, 9), variantID: result.text(row, 10),
                        arm: result.text(row, 11), placement: result.text(row, 12), demo: result.bool(row, 13),
                        configRevision: result.optionalInt64(row, 14), json: result.bytes(row, 15))
                }
            }
        }
    }
}
