import GronaMock

/// The reads: every one on a reading connection, paged by sequence, bounded by the page's limit.
extension SQLiteStorage {
    public func lastSequence() throws(StorageError) -> Int64 {
        try run { () throws(SQLiteError) in
            try database.withReader { connection throws(SQLiteError) in
                Int64(try connection.scalarText("SELECT coalesce(max(seq), 0) FROM events") ?? "0") ?? 0
            }
        }
    }

    public func events(matching filter: EventFilter, page: EventPage) throws(StorageError) -> StoredPage<StoredEventRow>
    {
        var (conditions, values) = filter.sqliteConditions()
        page.sqliteCondition(into: &conditions, &values)
        // One install's events are few: found through `events_by_visit` and sorted, rather than sought in
        // sequence order through the whole workspace (the planner's choice without statistics).
        let index = filter.installID != nil && filter.workspace != nil ? " INDEXED BY events_by_visit" : ""
        let sql = """
            SELECT seq, workspace_key, install_id, received_at, corrected_timestamp, json FROM events\(index)\
            \(Self.whereClause(conditions)) ORDER BY seq \(page.newestFirst ? "DESC" : "ASC") LIMIT \(page.limit + 1)
            """
        let rows = try read(sql, values) { statement in
            StoredEventRow(
                sequence: statement.int64(0), workspaceKey: statement.text(1) ?? "", installID: statement.text(2) ?? "",
                receivedAt: statement.int64(3), correctedTimestamp: statement.int64(4), json: statement.blob(5))
        }
        return Self.paged(rows, limit: page.limit, sequence: \.sequence)
    }

    public func count(matching filter: EventFilter) throws(StorageError) -> Int {
        let (conditions, values) = filter.sqliteConditions()
        let counts = try read("SELECT count(*) FROM events" + Self.whereClause(conditions), values) {
            Int($0.int64(0))
        }
        return counts.first ?? 0
    }

    public func count(matching filter: EventFilter, continuing tally: EventTally?) throws(StorageError) -> EventTally {
        let (conditions, values) = filter.sqliteConditions()
        let sql =
            "SELECT count(*) FROM events" + Self.whereClause(conditions + ["seq >= ?", "seq <= ?"])
        let blockSize = countBlockSize
        return try run { () throws(SQLiteError) in
            try database.withReader { connection throws(SQLiteError) in
                // One read transaction: the generation, the sequence bounds and the counts see one snapshot.
                try connection.execute("BEGIN")
                do throws(SQLiteError) {
                    let deletions = try connection.cached(Self.deletionGenerationSQL).int64Scalar() ?? 0
                    let oldest = try connection.cached("SELECT min(seq) FROM events").int64Scalar() ?? 0
                    let last = try connection.cached("SELECT max(seq) FROM events").int64Scalar() ?? 0
                    let statement = try connection.prepare(sql)
                    func count(_ range: ClosedRange<Int64>) throws(SQLiteError) -> Int {
                        try statement.bind(values + [.integer(range.lowerBound), .integer(range.upperBound)])
                        defer { statement.reset() }
                        return try statement.step() ? Int(statement.int64(0)) : 0
                    }
                    var next = EventTally(count: 0, through: 0, deletions: deletions, oldest: oldest)
                    // Continued only while no deletion happened and no sequence went back; drops of the oldest
                    // events keep the generation, and are seen as `oldest` moving up.
                    if let tally, tally.deletions == deletions, tally.through <= last, tally.oldest <= oldest {
                        next.blocks = tally.blocks
                        next.through = tally.through
                        if oldest > tally.oldest {
                            let cut = oldest / blockSize
                            next.blocks = next.blocks.filter { $0.key > cut }
                            let end = min((cut + 1) * blockSize - 1, tally.through)
                            if oldest <= end { next.blocks[cut] = try count(oldest...end) }
                        }
                    }
                    // The events stored since, block by block: each count is a range of sequences.
                    var from = max(next.through + 1, oldest)
                    while last > 0, from <= last {
                        let block = from / blockSize
                        let end = min((block + 1) * blockSize - 1, last)
                        let added = try count(from...end)
                        if added > 0 { next.blocks[block, default: 0] += added }
                        from = end + 1
                    }
                    next.through = last
                    next.count = next.blocks.values.reduce(0, +)
                    try connection.execute("COMMIT")
                    return next
                } catch {
                    try? connection.execute("ROLLBACK")
                    throw error
                }
            }
        }
    }

    public func rejectedEvents(workspace: String?, page: EventPage) throws(StorageError) -> StoredPage<
        StoredRejectedEvent
    > {
        var conditions: [String] = []
        var values: [SQLiteValue] = []
        if let workspace {
            conditions.append("workspace_key = ?")
            values.append(.text(workspace))
        }
        page.sqliteCondition(into: &conditions, &values)
        let sql = """
            SELECT seq, workspace_key, batch_index, event_id, field, reason, received_at, install_id, json
            FROM rejected_events\(Self.whereClause(conditions)) ORDER BY seq \(page.newestFirst ? "DESC" : "ASC") \
            LIMIT \(page.limit + 1)
            """
        let rows = try read(sql, values) { statement in
            StoredRejectedEvent(
                sequence: statement.int64(0),
                record: RejectedEventRecord(
                    workspaceKey: statement.text(1) ?? "", index: Int(statement.int64(2)), eventID: statement.text(3),
                    field: statement.text(4) ?? "", reason: statement.text(5) ?? "", receivedAt: statement.int64(6),
                    installID: statement.text(7) ?? "", json: statement.blob(8)))
        }
        return Self.paged(rows, limit: page.limit, sequence: \.sequence)
    }

    public func campaignCounts(workspace: String) throws(StorageError) -> CampaignCounts {
        let types = try read(Self.campaignTypeCountsSQL, [.text(workspace)]) { row in
            CampaignCounts.TypeCount(
                campaignID: row.text(0) ?? "", variantID: row.text(1) ?? "", arm: row.text(2) ?? "",
                demo: row.int64(3) != 0, type: row.text(4) ?? "", count: row.int64(5))
        }
        let attributed = try read(
            """
            SELECT t.campaign_id, t.variant_id, e.demo, count(*), CAST(total(e.total_minor) AS INTEGER)
            FROM (SELECT DISTINCT event_seq, campaign_id, variant_id FROM purchase_treatments
                  WHERE workspace_key = ?) t
            JOIN events e ON e.seq = t.event_seq GROUP BY t.campaign_id, t.variant_id, e.demo
            """, [.text(workspace)]
        ) { row in
            CampaignCounts.Attributed(
                campaignID: row.text(0) ?? "", variantID: row.text(1) ?? "", demo: row.int64(2) != 0,
                purchases: row.int64(3), revenueMinor: row.int64(4))
        }
        return CampaignCounts(types: types, attributed: attributed)
    }

    /// Runs a query on a reading connection and maps each row.
    private func read<Row>(
        _ sql: String, _ values: [SQLiteValue], _ row: (SQLiteStatement) -> Row
    ) throws(StorageError) -> [Row] {
        try run { () throws(SQLiteError) in
            try database.withReader { connection throws(SQLiteError) in
                let statement = try connection.prepare(sql)
                try statement.bind(values)
                var rows: [Row] = []
                while try statement.step() { rows.append(row(statement)) }
                return rows
            }
        }
    }

    /// A page from `limit + 1` rows: the extra row only says that there is a next page.
    private static func paged<Row>(_ rows: [Row], limit: Int, sequence: (Row) -> Int64) -> StoredPage<Row> {
        guard rows.count > limit else { return StoredPage(rows: rows, nextCursor: nil) }
        let kept = Array(rows.prefix(limit))
        return StoredPage(rows: kept, nextCursor: kept.last.map(sequence))
    }

    private static func whereClause(_ conditions: [String]) -> String {
        conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
    }
}

extension EventFilter {
    /// The filter's conditions on the events table, and their bound values.
    func sqliteConditions() -> (conditions: [String], values: [SQLiteValue]) {
        var conditions: [String] = []
        var values: [SQLiteValue] = []
        for (field, value) in textConditions {
            conditions.append("\(field.storedColumn) = ?")
            values.append(.text(value))
        }
        if let since {
            conditions.append("timestamp >= ?")
            values.append(.integer(since))
        }
        if let until {
            conditions.append("timestamp < ?")
            values.append(.integer(until))
        }
        return (conditions, values)
    }
}

extension EventPage {
    /// The cursor's condition: after it oldest first, before it newest first.
    func sqliteCondition(into conditions: inout [String], _ values: inout [SQLiteValue]) {
        guard let cursor else { return }
        conditions.append(newestFirst ? "seq < ?" : "seq > ?")
        values.append(.integer(cursor))
    }
}
