import GronaMock

/// `scanEvents`: statements over `events_by_visit`, stepped row by row into the caller's closure.
extension SQLiteStorage {
    public func scanEvents(_ scan: EventScan, _ body: (StoredEventColumns) -> Bool) throws(StorageError) {
        var conditions = ["workspace_key = ?", "seq <= ?"]
        var values: [SQLiteValue] = [.text(scan.workspace), .integer(scan.throughSequence)]
        if let installID = scan.installID {
            conditions.append("install_id = ?")
            values.append(.text(installID))
        }
        try run { () throws(SQLiteError) in
            try database.withReader { connection throws(SQLiteError) in
                for (condition, more) in Self.legs(from: scan.start) {
                    let sql = """
                        SELECT seq, event_id, type, timestamp, received_at, corrected_timestamp, install_id,
                            customer_id, visit_id, campaign_id, variant_id, arm, placement, demo, config_revision, json
                        FROM events INDEXED BY events_by_visit
                        WHERE \((conditions + [condition].compactMap { $0 }).joined(separator: " AND "))
                        ORDER BY install_id, visit_id, seq
                        """
                    guard try step(connection, sql, values + more, body) else { return }
                }
            }
        }
    }

    /// The statements a scan from `start` runs one after the other, each a seek in `events_by_visit` whatever
    /// the install holds before the start: the row comparison on (install, visit, sequence) is one, so a page
    /// resumed deep inside one install with every event costs what a page from the start does (the
    /// `install_id >= ?` form this replaces read the install's rows from its first, quadratic over the pages).
    /// NULL visit ids sort first and compare as NULL, so a start on an event without a visit takes two: the
    /// rest of its install's events without a visit, then every visit from its install on (`visit_id >= ''`
    /// holds for every text).
    private static func legs(from start: EventScanPosition?) -> [(String?, [SQLiteValue])] {
        guard let start else { return [(nil, [])] }
        let install = SQLiteValue.text(start.installID)
        guard let visitID = start.visitID else {
            return [
                ("install_id = ? AND visit_id IS NULL AND seq >= ?", [install, .integer(start.sequence)]),
                ("(install_id, visit_id) >= (?, '')", [install]),
            ]
        }
        return [("(install_id, visit_id, seq) >= (?, ?, ?)", [install, .text(visitID), .integer(start.sequence)])]
    }

    /// Steps one statement into `body`; false when `body` stopped the scan.
    private func step(
        _ connection: SQLiteConnection, _ sql: String, _ values: [SQLiteValue],
        _ body: (StoredEventColumns) -> Bool
    ) throws(SQLiteError) -> Bool {
        let statement = try connection.prepare(sql)
        defer { scanSteps.add(statement.virtualMachineSteps, ordering: .relaxed) }
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
            guard body(row) else { return false }
        }
        return true
    }
}
