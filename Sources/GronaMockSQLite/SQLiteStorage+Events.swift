import GronaMock

/// Writing a batch of events: the writer thread's hot path.
extension SQLiteStorage {
    private static let insertEventSQL: StaticString = """
        INSERT OR IGNORE INTO events (workspace_key, event_id, type, timestamp, received_at, corrected_timestamp,
            install_id, customer_id, session_id, visit_id, campaign_id, variant_id, arm, placement, demo,
            config_revision, total_minor, json)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    private static let insertTreatmentSQL: StaticString = """
        INSERT INTO purchase_treatments (event_seq, workspace_key, campaign_id, variant_id, placement,
            type, value_milli) VALUES (?, ?, ?, ?, ?, ?, ?)
        """

    private static let insertRejectedSQL: StaticString = """
        INSERT INTO rejected_events (workspace_key, batch_index, event_id, field, reason, received_at,
            install_id, json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// What an empty field points at: SQLite binds a null pointer as NULL, and an empty text is not NULL.
    private static let empty: StaticString = ""

    /// Inserts a batch; an event whose id is already stored for the workspace is a duplicate, not an error.
    ///
    /// The rows are bound where the event loop packed them (`SQLITE_STATIC`): no copy and no allocation per
    /// row. The packed bytes stay alive for the whole loop, and the bindings are cleared before it ends, so
    /// no statement keeps a pointer into them.
    static func write(
        _ batch: EventBatch, _ connection: SQLiteConnection, tally: inout CampaignTally
    ) throws(SQLiteError) -> EventBatchResult {
        let rows = batch.accepted
        var accepted = 0
        var duplicates: [Int] = []
        if !rows.isEmpty {
            let insert = try connection.cached(insertEventSQL)
            let treatment = try connection.cached(insertTreatmentSQL)
            try rows.bytes.withUnsafeBufferPointer { buffer throws(SQLiteError) in
                defer {
                    insert.clearBindings()
                    treatment.clearBindings()
                }
                func bind(_ statement: SQLiteStatement, _ field: EventRows.Field?, _ index: Int32, blob: Bool = false)
                    throws(SQLiteError)
                {
                    guard let field else { return try statement.bindNull(at: index) }
                    guard field.count > 0, let base = buffer.baseAddress else {
                        return try statement.bindStatic(empty.utf8Start, count: 0, at: index, asBlob: blob)
                    }
                    try statement.bindStatic(base + field.offset, count: field.count, at: index, asBlob: blob)
                }
                for (position, row) in rows.rows.enumerated() {
                    try bind(insert, row.workspaceKey, 1)
                    try bind(insert, row.eventID, 2)
                    try bind(insert, row.type, 3)
                    try insert.bind(row.timestamp, at: 4)
                    try insert.bind(row.receivedAt, at: 5)
                    try insert.bind(row.correctedTimestamp, at: 6)
                    try bind(insert, row.installID, 7)
                    try bind(insert, row.customerID, 8)
                    try bind(insert, row.sessionID, 9)
                    try bind(insert, row.visitID, 10)
                    try bind(insert, row.campaignID, 11)
                    try bind(insert, row.variantID, 12)
                    try bind(insert, row.arm, 13)
                    try bind(insert, row.placement, 14)
                    try insert.bind(row.demo ? 1 : 0, at: 15)
                    try insert.bind(row.configRevision, at: 16)
                    try insert.bind(row.totalMinor, at: 17)
                    try bind(insert, row.json, 18, blob: true)
                    try insert.runBound()
                    guard connection.changes == 1 else {
                        duplicates.append(position)
                        continue
                    }
                    accepted += 1
                    if let campaign = row.campaignID {
                        tally.add(
                            buffer, workspace: row.workspaceKey, campaign: campaign, variant: row.variantID,
                            arm: row.arm, demo: row.demo, type: row.type)
                    } else {
                        tally.addWithoutCampaign()
                    }
                    guard !row.treatments.isEmpty else { continue }
                    let seq = connection.lastInsertRowID
                    for claimed in rows.treatments[row.treatments] {
                        try treatment.bind(seq, at: 1)
                        try bind(treatment, row.workspaceKey, 2)
                        try bind(treatment, claimed.campaignID, 3)
                        try bind(treatment, claimed.variantID, 4)
                        try bind(treatment, claimed.placement, 5)
                        try bind(treatment, claimed.type, 6)
                        try treatment.bind(claimed.valueMilli, at: 7)
                        try treatment.runBound()
                    }
                }
            }
        }
        // Rejections are the exception, not the load: plain values, copied.
        for rejected in batch.rejected {
            try connection.cached(insertRejectedSQL).run([
                .text(rejected.workspaceKey), .integer(Int64(rejected.index)), .optional(rejected.eventID),
                .text(rejected.field), .text(rejected.reason), .integer(rejected.receivedAt), .text(rejected.installID),
                .blob(rejected.json),
            ])
        }
        return EventBatchResult(accepted: accepted, duplicateIndexes: duplicates)
    }
}
