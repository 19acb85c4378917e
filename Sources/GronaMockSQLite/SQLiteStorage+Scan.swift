import GronaMock

/// `scanEvents`: one statement over `events_by_visit`, stepped row by row into the caller's closure.
extension SQLiteStorage {
    public func scanEvents(_ scan: EventScan, _ body: (StoredEventColumns) -> Bool) throws(StorageError) {
        var conditions = ["workspace_key = ?", "seq <= ?"]
        var values: [SQLiteValue] = [.text(scan.workspace), .integer(scan.throughSequence)]
        if let installID = scan.installID {
            conditions.append("install_id = ?")
            values.append(.text(installID))
        }
        if let start = scan.start {
            // A seek on (workspace_key, install_id), then the few rows of the start's install before it are
            // skipped: the row-value comparison cannot be used as it is, since NULL visit ids sort first.
            conditions.append("install_id >= ?")
            values.append(.text(start.installID))
            if let visitID = start.visitID {
                conditions.append("(install_id > ? OR visit_id > ? OR (visit_id = ? AND seq >= ?))")
                values += [.text(start.installID), .text(visitID), .text(visitID), .integer(start.sequence)]
            } else {
                conditions.append("(install_id > ? OR visit_id IS NOT NULL OR seq >= ?)")
                values += [.text(start.installID), .integer(start.sequence)]
            }
        }
        let sql = """
            SELECT seq, event_id, type, timestamp, received_at, corrected_timestamp, install_id, customer_id,
                visit_id, campaign_id, variant_id, arm, placement, demo, config_revision, json
            FROM events INDEXED BY events_by_visit WHERE \(conditions.joined(separator: " AND "))
            ORDER BY install_id, visit_id, seq
            """
        try run { () throws(SQLiteError) in
            try database.withReader { connection throws(SQLiteError) in
                let statement = try connection.prepare(sql)
                try statement.bind(values)
                while try statement.step() {
                    let row = StoredEventColumns(
                        sequence: statement.int64(0), eventID: statement.text(1) ?? "", type: statement.text(2) ?? "",
                        timestamp: statement.int64(3), receivedAt: statement.int64(4),
                        correctedTimestamp: statement.int64(5), installID: statement.text(6) ?? "",
                        customerID: statement.text(7), visitID: statement.text(8), campaignID: statement.text(9),
                        variantID: statement.text(10), arm: statement.text(11), placement: statement.text(12),
                        demo: statement.int64(13) != 0,
                        configRevision: statement.isNull(14) ? nil : statement.int64(14), json: statement.blob(15))
                    guard body(row) else { return }
                }
            }
        }
    }
}
