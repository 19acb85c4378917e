import GronaMockHTTP
import GronaMockJSON

/// Which events a live viewer wants: each field set must match (`workspace`, `type`, `install`, `campaign`).
package struct LiveFilter: Sendable, Equatable {
    package var workspace: String?
    package var type: String?
    package var install: String?
    /// The event's `campaignID`, or the campaign of one of the treatments it claims (a purchase).
    package var campaign: String?

    package init(workspace: String? = nil, type: String? = nil, install: String? = nil, campaign: String? = nil) {
        self.workspace = workspace
        self.type = type
        self.install = install
        self.campaign = campaign
    }
}

/// The live feed's events as Server-Sent Events (WHATWG HTML §9.2, "Server-sent events"): an `id:` line with
/// the event's number in the feed, an `event:` line (`accepted`, `duplicate`, `rejected` or `gap`) and one
/// `data:` line of compact JSON, then an empty line. Compact JSON holds no line break, so one `data:` line is
/// always the whole event.
enum LiveEventText {
    /// What kind of line an SSE event is; `gap` says how many events a viewer missed.
    enum Kind: String, CaseIterable, Sendable {
        case accepted, duplicate, rejected, gap
    }

    /// The comment a viewer gets when nothing else was sent for a while, so proxies and the client know the
    /// stream is alive (a line starting with `:` is ignored by SSE parsers).
    static let heartbeat: [UInt8] = Array(": heartbeat\n\n".utf8)

    /// `{"missed": n}` with the id of the last event missed, so a client resuming from it skips them.
    static func gap(missed: Int, lastMissedID: Int, to output: inout [UInt8]) {
        head(id: lastMissedID, kind: .gap, to: &output)
        output.append(contentsOf: "{\"missed\":\(missed)}\n\n".utf8)
    }

    /// Appends the events of `entry` numbered above `cursor` that pass `filter`; answers the id of the last
    /// one looked at.
    static func append(
        _ entry: LiveFeed.Entry, after cursor: Int, filter: LiveFilter, to output: inout [UInt8]
    ) -> Int {
        let batch = entry.batch
        if let workspace = filter.workspace, workspace != batch.workspaceKey { return entry.endID - 1 }
        let rows = batch.accepted
        var duplicates = entry.duplicateIndexes[...]
        for position in 0..<entry.count {
            let id = entry.firstID + position
            if position < rows.count {
                while let first = duplicates.first, first < position { duplicates = duplicates.dropFirst() }
                guard id > cursor, accepts(rows, position, filter) else { continue }
                let kind: Kind = duplicates.first == position ? .duplicate : .accepted
                accepted(rows, position, id: id, kind: kind, workspace: batch.workspaceKey, to: &output)
            } else {
                let record = batch.rejected[position - rows.count]
                guard id > cursor, filter.install.map({ $0 == record.installID }) ?? true else { continue }
                let type = claimedType(record)
                guard filter.type.map({ $0 == type }) ?? true, filter.campaign == nil else { continue }
                rejected(record, type: type, id: id, to: &output)
            }
        }
        return entry.endID - 1
    }

    private static func accepts(_ rows: EventRows, _ position: Int, _ filter: LiveFilter) -> Bool {
        let row = rows.rows[position]
        if let type = filter.type, rows.string(row.type) != type { return false }
        if let install = filter.install, rows.string(row.installID) != install { return false }
        if let campaign = filter.campaign {
            let claimed = rows.treatments[row.treatments].contains { rows.string($0.campaignID) == campaign }
            return claimed || row.campaignID.map { rows.string($0) == campaign } == true
        }
        return true
    }

    private static func accepted(
        _ rows: EventRows, _ position: Int, id: Int, kind: Kind, workspace: String, to output: inout [UInt8]
    ) {
        let row = rows.rows[position]
        head(id: id, kind: kind, to: &output)
        let fields: JSONObject = [
            "id": .number(JSONNumber(id)), "status": .string(kind.rawValue), "workspace": .string(workspace),
            "type": .string(rows.string(row.type)), "installID": .string(rows.string(row.installID)),
            "campaignID": row.campaignID.map { .string(rows.string($0)) } ?? .null,
            "arm": row.arm.map { .string(rows.string($0)) } ?? .null,
            "receivedAt": .number(JSONNumber(row.receivedAt)),
        ]
        body(fields, event: rows.bytes[row.json.offset..<row.json.offset + row.json.count], to: &output)
    }

    private static func rejected(_ record: RejectedEventRecord, type: String?, id: Int, to output: inout [UInt8]) {
        head(id: id, kind: .rejected, to: &output)
        let fields: JSONObject = [
            "id": .number(JSONNumber(id)), "status": .string(Kind.rejected.rawValue),
            "workspace": .string(record.workspaceKey), "type": type.map(JSONValue.string) ?? .null,
            "installID": .string(record.installID), "campaignID": .null, "arm": .null,
            "receivedAt": .number(JSONNumber(record.receivedAt)), "index": .number(JSONNumber(record.index)),
            "field": .string(record.field), "reason": .string(record.reason),
        ]
        body(fields, event: record.json[...], to: &output)
    }

    /// The `type` a rejected event claimed, when it is a string: it was rejected, so it may be anything.
    private static func claimedType(_ record: RejectedEventRecord) -> String? {
        (try? JSONParser().parse(record.json))?["type"]?.stringValue.map { String($0.prefix(64)) }
    }

    private static func head(id: Int, kind: Kind, to output: inout [UInt8]) {
        output.append(contentsOf: "id: \(id)\nevent: \(kind.rawValue)\ndata: ".utf8)
    }

    /// `fields` with the event's own JSON as `event`, on one `data:` line. The event's JSON was written
    /// compactly by the server (`JSONValue.serialized`), so it holds no line break; one is replaced by a
    /// space all the same, since a stray one would end the SSE field.
    private static func body(_ fields: JSONObject, event: ArraySlice<UInt8>, to output: inout [UInt8]) {
        var object = JSONValue.object(fields).serialized()
        object.removeLast()
        output.append(contentsOf: object)
        output.append(contentsOf: ",\"event\":".utf8)
        output.append(contentsOf: event.lazy.map { $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 })
        output.append(contentsOf: "}\n\n".utf8)
    }
}
