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

    /// A batch's events as SSE text, made once by the first viewer that reads the batch and shared by all the
    /// others: ten viewers cost one formatting of each event, not ten. With what the filters look at.
    struct Formatted: Sendable {
        /// Every event's text, one after the other; event `i` ends at `ends[i]`.
        var bytes: [UInt8] = []
        var ends: [Int] = []
        var keys: [Keys] = []

        /// What a filter compares, per event.
        struct Keys: Sendable {
            var type: String?
            var install: String
            /// The event's `campaignID` and the campaigns of the treatments it claims; none for a rejected one.
            var campaigns: [String]
        }

        func text(_ position: Int) -> ArraySlice<UInt8> {
            bytes[(position == 0 ? 0 : ends[position - 1])..<ends[position]]
        }
    }

    /// Appends the events of `entry` numbered above `cursor` that pass `filter`; answers the id of the last
    /// one looked at.
    static func append(
        _ entry: LiveFeed.Entry, after cursor: Int, filter: LiveFilter, to output: inout [UInt8]
    ) -> Int {
        let last = entry.endID - 1
        if let workspace = filter.workspace, workspace != entry.batch.workspaceKey { return last }
        let first = max(0, cursor + 1 - entry.firstID)
        guard first < entry.count else { return last }
        let formatted = entry.formatted.get { format(entry) }
        if filter.type == nil && filter.install == nil && filter.campaign == nil {
            // Everything after the cursor, in one copy.
            output.append(contentsOf: formatted.bytes[(first == 0 ? 0 : formatted.ends[first - 1])...])
            return last
        }
        for position in first..<entry.count {
            let keys = formatted.keys[position]
            if let type = filter.type, type != keys.type { continue }
            if let install = filter.install, install != keys.install { continue }
            if let campaign = filter.campaign, !keys.campaigns.contains(campaign) { continue }
            output.append(contentsOf: formatted.text(position))
        }
        return last
    }

    /// Every event of a batch as SSE text: the accepted ones in order (a duplicate as `duplicate`), then the
    /// rejected ones.
    static func format(_ entry: LiveFeed.Entry) -> Formatted {
        let batch = entry.batch
        let rows = batch.accepted
        var formatted = Formatted()
        formatted.bytes.reserveCapacity(rows.bytes.count + entry.count * 256)
        var duplicates = entry.duplicateIndexes[...]
        for position in 0..<entry.count {
            let id = entry.firstID + position
            if position < rows.count {
                while let first = duplicates.first, first < position { duplicates = duplicates.dropFirst() }
                let kind: Kind = duplicates.first == position ? .duplicate : .accepted
                accepted(rows, position, id: id, kind: kind, workspace: batch.workspaceKey, to: &formatted.bytes)
                let row = rows.rows[position]
                let claimed = rows.treatments[row.treatments].map { rows.string($0.campaignID) }
                formatted.keys.append(
                    Formatted.Keys(
                        type: rows.string(row.type), install: rows.string(row.installID),
                        campaigns: (row.campaignID.map { [rows.string($0)] } ?? []) + claimed))
            } else {
                let record = batch.rejected[position - rows.count]
                let type = claimedType(record)
                rejected(record, type: type, id: id, to: &formatted.bytes)
                formatted.keys.append(Formatted.Keys(type: type, install: record.installID, campaigns: []))
            }
            formatted.ends.append(formatted.bytes.count)
        }
        return formatted
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
