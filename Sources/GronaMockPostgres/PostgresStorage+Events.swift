import GronaMock

/// Writing a run of batches: the writer thread's hot path. The events go by COPY (`PostgresStorage+Copy.swift`);
/// a group that met a stored duplicate comes back here. Each table gets one prepared statement per run,
/// whatever the number of rows: every column travels as one binary array and `unnest` turns them back into
/// rows, so there is no per-row round trip and no statement text that grows with the rows.
extension PostgresStorage {
    private static let insertEventsSQL = """
        INSERT INTO events (workspace_key, event_id, type, timestamp, received_at, corrected_timestamp,
            install_id, customer_id, session_id, visit_id, campaign_id, variant_id, arm, placement, demo,
            config_revision, total_minor, json)
        SELECT * FROM unnest($1::bytea[], $2::bytea[], $3::bytea[], $4::bigint[], $5::bigint[], $6::bigint[],
            $7::bytea[], $8::bytea[], $9::bytea[], $10::bytea[], $11::bytea[], $12::bytea[], $13::bytea[],
            $14::bytea[], $15::boolean[], $16::bigint[], $17::bigint[], $18::bytea[])
        ON CONFLICT (workspace_key, event_id) DO NOTHING
        RETURNING seq, workspace_key, event_id
        """

    private static let insertTreatmentsSQL = """
        INSERT INTO purchase_treatments (event_seq, workspace_key, campaign_id, variant_id, placement, type,
            value_milli)
        SELECT * FROM unnest($1::bigint[], $2::bytea[], $3::bytea[], $4::bytea[], $5::bytea[], $6::bytea[],
            $7::bigint[])
        """

    private static let insertRejectedSQL = """
        INSERT INTO rejected_events (workspace_key, batch_index, event_id, field, reason, received_at, install_id,
            json)
        SELECT * FROM unnest($1::bytea[], $2::bigint[], $3::bytea[], $4::bytea[], $5::bytea[], $6::bigint[],
            $7::bytea[], $8::bytea[])
        """

    /// Writes consecutive batches of one group commit, in order; an event whose id is already stored for
    /// its workspace (or came earlier in the run) is a duplicate, not an error.
    ///
    /// `.copy` throws a unique violation (SQLSTATE 23505) when an event was already stored: the caller then
    /// rolls the group back and writes it again `.skippingStored` (see `EventWriteMethod`).
    static func write(
        _ batches: [EventBatch], _ connection: PostgresConnection, by method: EventWriteMethod
    ) throws(PostgresError) -> [EventBatchResult] {
        var run = EventRun(batches)
        if run.rowCount > 0 {
            switch method {
            case .copy:
                try copy(&run, connection)
            case .skippingStored:
                run.admitAll()
                try insertSkippingStored(&run, connection)
            }
        }
        try writeRejected(batches.flatMap(\.rejected), connection)
        return zip(batches, run.duplicates).map { batch, duplicates in
            EventBatchResult(accepted: batch.accepted.count - duplicates.count, duplicateIndexes: duplicates.sorted())
        }
    }

    /// Only the first of each workspace and eventID in the run is sent, so each row sent has its own key:
    /// `ON CONFLICT DO NOTHING … RETURNING` then names exactly the rows stored, and every other is a
    /// duplicate, already stored by this or another instance (the unique index decides, across instances).
    private static func insertSkippingStored(_ run: inout EventRun, _ connection: PostgresConnection)
        throws(PostgresError)
    {
        var columns = EventColumns(rows: run.sent.count)
        for origin in run.sent {
            let rows = run.batches[origin.batch].accepted
            columns.append(rows.rows[origin.position], of: rows)
        }
        var stored = [Int64?](repeating: nil, count: run.sent.count)
        let result = try connection.run(prepared: "insert_events", insertEventsSQL, columns.binds)
        for row in 0..<result.rowCount {
            let key = EventRun.Key(
                workspace: ArraySlice(result.bytes(row, 1)), eventID: ArraySlice(result.bytes(row, 2)))
            guard let index = run.sentByKey[key] else { continue }
            stored[index] = result.int64(row, 0)
        }
        var treatments = TreatmentColumns()
        for (index, origin) in run.sent.enumerated() {
            guard let seq = stored[index] else {
                run.duplicates[origin.batch].append(origin.position)
                continue
            }
            let rows = run.batches[origin.batch].accepted
            let row = rows.rows[origin.position]
            for claimed in rows.treatments[row.treatments] {
                treatments.append(claimed, event: seq, workspace: rows.slice(row.workspaceKey), of: rows)
            }
        }
        if treatments.count > 0 {
            try connection.run(prepared: "insert_treatments", insertTreatmentsSQL, treatments.binds)
        }
    }

    /// Rejections are the exception, not the load: one insert for the run, when there are any.
    private static func writeRejected(
        _ rejected: [RejectedEventRecord], _ connection: PostgresConnection
    ) throws(PostgresError) {
        guard !rejected.isEmpty else { return }
        var workspace = PostgresArray(of: .bytea)
        var index = PostgresArray(of: .int8)
        var eventID = PostgresArray(of: .bytea)
        var field = PostgresArray(of: .bytea)
        var reason = PostgresArray(of: .bytea)
        var receivedAt = PostgresArray(of: .int8)
        var installID = PostgresArray(of: .bytea)
        var json = PostgresArray(of: .bytea)
        for record in rejected {
            workspace.append(record.workspaceKey)
            index.append(Int64(record.index))
            eventID.append(record.eventID)
            field.append(record.field)
            reason.append(record.reason)
            receivedAt.append(record.receivedAt)
            installID.append(record.installID)
            json.append(record.json)
        }
        var binds = PostgresBinds()
        for column in [workspace, index, eventID, field, reason, receivedAt, installID, json] { binds.append(column) }
        try connection.run(prepared: "insert_rejected", insertRejectedSQL, binds)
    }
}

/// A run of batches with the duplicates inside it set aside: `sent` holds the first of each workspace and
/// eventID, in order, and `duplicates` each batch's positions of the others (and, after writing
/// `.skippingStored`, of those already stored).
struct EventRun {
    /// An event's identity: its workspace and eventID, as bytes (contract §7: unique per workspace).
    struct Key: Hashable {
        let workspace: ArraySlice<UInt8>
        let eventID: ArraySlice<UInt8>

        /// Each field's bytes in one call: the synthesized hash feeds a slice to the hasher byte by byte,
        /// which was the writer's largest cost per event once rows went by COPY.
        func hash(into hasher: inout Hasher) {
            workspace.withUnsafeBytes { hasher.combine(bytes: $0) }
            hasher.combine(workspace.count)
            eventID.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    let batches: [EventBatch]
    let rowCount: Int
    private(set) var sent: [(batch: Int, position: Int)] = []
    private(set) var sentByKey: [Key: Int] = [:]
    var duplicates: [[Int]]

    init(_ batches: [EventBatch]) {
        self.batches = batches
        rowCount = batches.reduce(0) { $0 + $1.accepted.count }
        duplicates = [[Int]](repeating: [], count: batches.count)
        sent.reserveCapacity(rowCount)
        sentByKey.reserveCapacity(rowCount)
    }

    /// Whether the row at `position` of batch `batch` is the first of its key in the run (then it is sent);
    /// otherwise it is recorded as a duplicate. Called for each row once, in order.
    mutating func admit(_ batch: Int, _ position: Int) -> Bool {
        let rows = batches[batch].accepted
        let row = rows.rows[position]
        let key = Key(workspace: rows.slice(row.workspaceKey), eventID: rows.slice(row.eventID))
        guard sentByKey[key] == nil else {
            duplicates[batch].append(position)
            return false
        }
        sentByKey[key] = sent.count
        sent.append((batch, position))
        return true
    }

    /// Admits every row, in order.
    mutating func admitAll() {
        for batch in batches.indices {
            for position in batches[batch].accepted.rows.indices { _ = admit(batch, position) }
        }
    }
}

extension EventRows {
    /// A field's bytes, in place.
    func slice(_ field: Field) -> ArraySlice<UInt8> {
        bytes[field.offset..<field.offset + field.count]
    }
}

/// The events table's columns, one array each, in `insertEventsSQL`'s order.
private struct EventColumns {
    private var text: [PostgresArray]
    private var numbers: [PostgresArray]
    private var demo: PostgresArray

    init(rows: Int) {
        text = (0..<12).map { _ in PostgresArray(of: .bytea, reservingBytes: rows * 24) }
        numbers = (0..<5).map { _ in PostgresArray(of: .int8, reservingBytes: rows * 12) }
        demo = PostgresArray(of: .bool, reservingBytes: rows * 5)
    }

    mutating func append(_ row: EventRows.Row, of rows: EventRows) {
        let fields: [EventRows.Field?] = [
            row.workspaceKey, row.eventID, row.type, row.installID, row.customerID, row.sessionID, row.visitID,
            row.campaignID, row.variantID, row.arm, row.placement, row.json,
        ]
        for (column, field) in fields.enumerated() {
            if let field { text[column].append(rows.slice(field)) } else { text[column].appendNull() }
        }
        for (column, number) in [row.timestamp, row.receivedAt, row.correctedTimestamp].enumerated() {
            numbers[column].append(number)
        }
        numbers[3].append(row.configRevision)
        numbers[4].append(row.totalMinor)
        demo.append(row.demo)
    }

    /// The 18 parameters: workspace, id, type, three times, install, the optional texts, demo, revision,
    /// total, JSON.
    var binds: PostgresBinds {
        var binds = PostgresBinds()
        for column in text[0..<3] { binds.append(column) }
        for column in numbers[0..<3] { binds.append(column) }
        for column in text[3..<11] { binds.append(column) }
        binds.append(demo)
        for column in numbers[3..<5] { binds.append(column) }
        binds.append(text[11])
        return binds
    }
}

/// The purchase treatments' columns, in `insertTreatmentsSQL`'s order.
private struct TreatmentColumns {
    private var event = PostgresArray(of: .int8)
    private var text = (0..<5).map { _ in PostgresArray(of: .bytea) }
    private var value = PostgresArray(of: .int8)

    var count: Int { event.count }

    mutating func append(
        _ claimed: EventRows.Treatment, event seq: Int64, workspace: ArraySlice<UInt8>, of rows: EventRows
    ) {
        event.append(seq)
        text[0].append(workspace)
        for (column, field) in [claimed.campaignID, claimed.variantID, claimed.placement, claimed.type].enumerated() {
            text[column + 1].append(rows.slice(field))
        }
        value.append(claimed.valueMilli)
    }

    var binds: PostgresBinds {
        var binds = PostgresBinds()
        binds.append(event)
        for column in text { binds.append(column) }
        binds.append(value)
        return binds
    }
}
