import GronaMockJSON

/// `GET /_mock/events/export` (and `grona-mock events export`): every matching event, oldest first, as
/// NDJSON (each event as `GET /_mock/events` lists it) or CSV (`EventCSV`), one page of the listing at a
/// time, so memory is one page whatever the export's size.
///
/// The events stored when the export began: under steady traffic it would otherwise chase new ones for
/// ever. Each page is the listing's query, a seek on `(workspace_key, seq)` from the cursor, so a page deep in
/// the export costs what the first did.
package struct EventExport: Sendable {
    package enum Format: String, CaseIterable, Sendable {
        case ndjson, csv

        package var contentType: String {
            switch self {
            case .ndjson: "application/x-ndjson"
            case .csv: "text/csv; charset=utf-8"
            }
        }
    }

    package static let csvColumns = [
        "sequence", "workspaceKey", "eventID", "type", "timestamp", "receivedAt", "correctedTimestamp", "installID",
        "customerID", "sessionID", "visitID", "campaignID", "variantID", "arm", "placement", "demo",
    ]

    let storage: any GronaStorage
    let filter: EventFilter
    let format: Format
    let throughSequence: Int64
    private var cursor: Int64?
    private var started = false
    private var done = false

    package init(storage: any GronaStorage, filter: EventFilter, format: Format) throws(StorageError) {
        self.storage = storage
        self.filter = filter
        self.format = format
        throughSequence = try storage.lastSequence()
    }

    /// The next piece of the export (the CSV header first, then one page of events), nil at the end.
    package mutating func next() throws(StorageError) -> [UInt8]? {
        guard !done else { return nil }
        var output: [UInt8] = []
        if !started {
            started = true
            if format == .csv {
                output += Self.csvColumns.joined(separator: ",").utf8
                output.append(0x0A)
            }
        }
        var page = EventPage()
        page.limit = EventPage.maxLimit
        page.cursor = cursor
        let stored = try storage.events(matching: filter, page: page)
        output.reserveCapacity(output.count + stored.rows.count * 400)
        for row in stored.rows where row.sequence <= throughSequence {
            switch format {
            case .ndjson: Self.appendLine(row, to: &output)
            case .csv:
                output += EventCSV.row(EventStore.json(row), columns: Self.csvColumns).utf8
                output.append(0x0A)
            }
        }
        cursor = stored.nextCursor
        if cursor.map({ $0 >= throughSequence }) ?? true { done = true }
        return output
    }

    /// The server's fields the listing adds to each event.
    private static let serverFields: [StaticString] = [
        "sequence", "workspaceKey", "installID", "receivedAt", "correctedTimestamp",
    ]

    /// One NDJSON line: the event as the listing shows it. The stored JSON is the validator's own
    /// serialisation, so the server's fields are appended to it in place (as `JSONObject.set` would add
    /// them) rather than the whole event parsed and written again; an event that itself holds one of
    /// those names is rebuilt the slow way, which replaces it.
    static func appendLine(_ row: StoredEventRow, to output: inout [UInt8]) {
        let json = row.json[...]
        guard json.first == UInt8(ascii: "{"), json.last == UInt8(ascii: "}"),
            !JSONMembers.mayHold(serverFields, in: json)
                || JSONMembers.ranges(in: json, keys: serverFields)?.allSatisfy({ $0 == nil }) == true
        else {
            output += EventStore.json(row).serialized()
            output.append(0x0A)
            return
        }
        // A slice up to the closing brace: `json.dropLast()` here resolves to Sequence's, which copies the
        // event through a ring buffer, element by element (a third of the export's time).
        output.append(contentsOf: json[json.startIndex..<(json.endIndex - 1)])
        if json.count > 2 { output.append(UInt8(ascii: ",")) }
        // Appended piece by piece, numbers included: an interpolated String per line was a tenth of the time.
        append("\"sequence\":", to: &output)
        JSONWriter.writeNumber(JSONNumber(row.sequence), to: &output)
        append(",\"workspaceKey\":", to: &output)
        JSONWriter.writeString(row.workspaceKey, to: &output)
        append(",\"installID\":", to: &output)
        JSONWriter.writeString(row.installID, to: &output)
        append(",\"receivedAt\":", to: &output)
        JSONWriter.writeNumber(JSONNumber(row.receivedAt), to: &output)
        append(",\"correctedTimestamp\":", to: &output)
        JSONWriter.writeNumber(JSONNumber(row.correctedTimestamp), to: &output)
        append("}\n", to: &output)
    }

    private static func append(_ text: StaticString, to output: inout [UInt8]) {
        output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}
