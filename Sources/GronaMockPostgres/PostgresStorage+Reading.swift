import GronaMock

/// The reads: every one on a reading connection, paged by sequence, bounded by the page's limit. What pages
/// by the events' sequence keeps to settled sequences (`ArrivalOrder`), so a cursor never passes an event
/// still to commit.
extension PostgresStorage {
    public func lastSequence() throws(StorageError) -> Int64 {
        let last = try readSettled { settled in
            var binds = PostgresBinds()
            return ("SELECT coalesce(max(seq), 0) FROM events WHERE seq <= " + binds.placeholder(settled), binds)
        } row: { result, row in
            result.int64(row, 0)
        }
        return last.first ?? 0
    }

    public func events(matching filter: EventFilter, page: EventPage) throws(StorageError) -> StoredPage<StoredEventRow>
    {
        let rows = try readSettled { settled in
            var binds = PostgresBinds()
            var conditions = filter.postgresConditions(&binds)
            page.postgresCondition(into: &conditions, &binds)
            conditions.append("seq <= " + binds.placeholder(settled))
            let sql = """
                SELECT seq, workspace_key, install_id, received_at, corrected_timestamp, json FROM events\
                \(Self.whereClause(conditions)) ORDER BY seq \(page.newestFirst ? "DESC" : "ASC") \
                LIMIT \(binds.placeholder(page.postgresLimit))
                """
            return (sql, binds)
        } row: { result, row in
            StoredEventRow(
                sequence: result.int64(row, 0), workspaceKey: result.text(row, 1) ?? "",
                installID: result.text(row, 2) ?? "", receivedAt: result.int64(row, 3),
                correctedTimestamp: result.int64(row, 4), json: result.bytes(row, 5))
        }
        return Self.paged(rows, limit: page.limit, sequence: \.sequence)
    }

    public func count(matching filter: EventFilter) throws(StorageError) -> Int {
        var binds = PostgresBinds()
        let conditions = filter.postgresConditions(&binds)
        let counts = try read("SELECT count(*) FROM events" + Self.whereClause(conditions), binds) { result, row in
            Int(result.int64(row, 0))
        }
        return counts.first ?? 0
    }

    /// PostgreSQL keeps `events_by_type` and tracks no deletions: it counts every matching event each time.
    public func count(matching filter: EventFilter, continuing tally: EventTally?) throws(StorageError) -> EventTally {
        EventTally(count: try count(matching: filter), through: 0, deletions: 0)
    }

    public func rejectedEvents(workspace: String?, page: EventPage) throws(StorageError) -> StoredPage<
        StoredRejectedEvent
    > {
        var binds = PostgresBinds()
        var conditions: [String] = []
        if let workspace { conditions.append("workspace_key = " + binds.placeholder(workspace)) }
        page.postgresCondition(into: &conditions, &binds)
        let sql = """
            SELECT seq, workspace_key, batch_index, event_id, field, reason, received_at, install_id, json
            FROM rejected_events\(Self.whereClause(conditions)) ORDER BY seq \(page.newestFirst ? "DESC" : "ASC") \
            LIMIT \(binds.placeholder(page.postgresLimit))
            """
        let rows = try read(sql, binds) { result, row in
            StoredRejectedEvent(
                sequence: result.int64(row, 0),
                record: RejectedEventRecord(
                    workspaceKey: result.text(row, 1) ?? "", index: Int(result.int64(row, 2)),
                    eventID: result.text(row, 3), field: result.text(row, 4) ?? "", reason: result.text(row, 5) ?? "",
                    receivedAt: result.int64(row, 6), installID: result.text(row, 7) ?? "",
                    json: result.bytes(row, 8)))
        }
        return Self.paged(rows, limit: page.limit, sequence: \.sequence)
    }

    /// Revenue is summed as `numeric` and clamped to bigint's range, as SQLite's `total()` is read into an
    /// Int64: a client may store thousands of purchases of the largest `totalMinor`, and the sum must not
    /// fail the whole summary.
    ///
    /// As SQLite has it: absent fields sort first (`NULLS FIRST`, SQLite's order) and bytea sorts byte by
    /// byte (SQLite's default collation).
    public func campaignCounts(workspace: String) throws(StorageError) -> CampaignCounts {
        var binds = PostgresBinds()
        binds.append(workspace)
        let types = try read(
            """
            SELECT campaign_id, variant_id, arm, demo, type, count(*) FROM events
            WHERE workspace_key = $1 AND campaign_id IS NOT NULL
            GROUP BY campaign_id, variant_id, arm, demo, type
            ORDER BY campaign_id, variant_id NULLS FIRST, arm NULLS FIRST, type
            """, binds
        ) { result, row in
            CampaignCounts.TypeCount(
                campaignID: result.text(row, 0) ?? "", variantID: result.text(row, 1) ?? "",
                arm: result.text(row, 2) ?? "", demo: result.bool(row, 3), type: result.text(row, 4) ?? "",
                count: result.int64(row, 5))
        }
        let attributed = try read(
            """
            SELECT t.campaign_id, t.variant_id, e.demo, count(*), greatest(least(coalesce(sum(e.total_minor), 0), 9223372036854775807), -9223372036854775808)::bigint
            FROM (SELECT DISTINCT event_seq, campaign_id, variant_id FROM purchase_treatments
                  WHERE workspace_key = $1) t
            JOIN events e ON e.seq = t.event_seq GROUP BY t.campaign_id, t.variant_id, e.demo
            ORDER BY t.campaign_id, t.variant_id, e.demo
            """, binds
        ) { result, row in
            CampaignCounts.Attributed(
                campaignID: result.text(row, 0) ?? "", variantID: result.text(row, 1) ?? "", demo: result.bool(row, 2),
                purchases: result.int64(row, 3), revenueMinor: result.int64(row, 4))
        }
        return CampaignCounts(types: types, attributed: attributed)
    }

    /// Runs a query on a reading connection and maps each row.
    private func read<Row>(
        _ sql: String, _ binds: PostgresBinds, _ row: (PostgresResult, Int) -> Row
    ) throws(StorageError) -> [Row] {
        try run { () throws(PostgresError) in
            try pool.withReader { connection throws(PostgresError) in
                let result = try connection.query(sql, binds)
                return (0..<result.rowCount).map { row(result, $0) }
            }
        }
    }

    /// Settles (`ArrivalOrder.settled`), then runs the query `build` makes with the settled sequence, in a
    /// later statement (so a later snapshot), on the same reading connection.
    private func readSettled<Row>(
        _ build: (Int64) -> (String, PostgresBinds), row: (PostgresResult, Int) -> Row
    ) throws(StorageError) -> [Row] {
        try run { () throws(PostgresError) in
            try pool.withReader { connection throws(PostgresError) in
                let (sql, binds) = build(try ArrivalOrder.settled(connection))
                let result = try connection.query(sql, binds)
                return (0..<result.rowCount).map { row(result, $0) }
            }
        }
    }

    /// A page from `limit + 1` rows: the extra row only says that there is a next page.
    private static func paged<Row>(_ rows: [Row], limit: Int, sequence: (Row) -> Int64) -> StoredPage<Row> {
        guard rows.count > limit else { return StoredPage(rows: rows, nextCursor: nil) }
        let kept = Array(rows.prefix(max(0, limit)))
        return StoredPage(rows: kept, nextCursor: kept.last.map(sequence))
    }

    private static func whereClause(_ conditions: [String]) -> String {
        conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
    }
}

extension EventFilter {
    /// The filter's conditions on the events table, their values appended to `binds`.
    func postgresConditions(_ binds: inout PostgresBinds) -> [String] {
        var conditions: [String] = []
        for (field, value) in textConditions {
            conditions.append("\(field.storedColumn) = " + binds.placeholder(value))
        }
        if let since { conditions.append("timestamp >= " + binds.placeholder(since)) }
        if let until { conditions.append("timestamp < " + binds.placeholder(until)) }
        return conditions
    }
}

extension EventPage {
    /// The cursor's condition: after it oldest first, before it newest first.
    func postgresCondition(into conditions: inout [String], _ binds: inout PostgresBinds) {
        guard let cursor else { return }
        conditions.append("seq \(newestFirst ? "<" : ">") " + binds.placeholder(cursor))
    }

    /// `limit + 1` rows, the extra one saying whether a next page exists; never negative, never overflowing.
    var postgresLimit: Int64 { Int64(max(0, min(limit, Int(Int32.max)))) + 1 }
}
