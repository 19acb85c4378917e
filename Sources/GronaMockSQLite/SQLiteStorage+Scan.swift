import GronaMock

/// `scanEvents`: statements over `events_by_visit`, stepped row by row into the caller's closure.
extension SQLiteStorage {
    public func scanEvents(_ scan: EventScan, _ body: (StoredEventColumns) -> Bool) throws(StorageError) {
        try statements(scan) { statement throws(SQLiteError) in
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

    /// The columns' bytes copied straight from SQLite's row into the batch: no `String` or array per row.
    public func scanEvents(
        _ scan: EventScan, into batch: inout StoredEventBatch, _ body: (inout StoredEventBatch) -> Bool
    ) throws(StorageError) {
        try statements(scan) { statement throws(SQLiteError) in
            while try statement.step() {
                func pack(_ column: Int32) -> StoredEventBatch.Field? {
                    statement.withBytes(column) { batch.pack($0) }
                }
                let eventID = pack(1) ?? .empty
                let type = pack(2) ?? .empty
                let installID = pack(6) ?? .empty
                let customerID = pack(7)
                let visitID = pack(8)
                let campaignID = pack(9)
                let variantID = pack(10)
                let arm = pack(11)
                let placement = pack(12)
                let json = pack(15) ?? .empty
                batch.append(
                    StoredEventBatch.Row(
                        sequence: statement.int64(0), timestamp: statement.int64(3), receivedAt: statement.int64(4),
                        correctedTimestamp: statement.int64(5),
                        configRevision: statement.isNull(14) ? nil : statement.int64(14),
                        demo: statement.int64(13) != 0, eventID: eventID, type: type, installID: installID,
                        customerID: customerID, visitID: visitID, campaignID: campaignID, variantID: variantID,
                        arm: arm, placement: placement, json: json))
                guard body(&batch) else { return false }
            }
            return true
        }
    }

    /// Runs the statements of `scan` (see `legs`) one after the other, each handed to `step`, which steps it and
    /// answers false when its caller stopped the scan.
    private func statements(
        _ scan: EventScan, _ step: (SQLiteStatement) throws(SQLiteError) -> Bool
    ) throws(StorageError) {
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
                    let statement = try connection.prepare(sql)
                    defer { scanSteps.add(statement.virtualMachineSteps, ordering: .relaxed) }
                    try statement.bind(values + more)
                    guard try step(statement) else { return }
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
}
