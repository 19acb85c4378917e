extension CheckedEvent {
    /// The members read from the JSON: the rest come from the row's columns, which the validator filled from
    /// the same JSON. `demo` is read here too, since its column cannot tell "false" from "not said".
    private static let members: [StaticString] = ["screen", "key", "preview", "demo", "treatments"]
    private static let screenMembers: [StaticString] = ["type", "id", "name"]

    /// Reads row `index` of a scan's batch from its columns and a skim of its JSON (`JSONMembers`): the same
    /// fields as `init(_: JSONValue)` gives for the event as the inspection API lists it, at a fraction of the
    /// cost. The JSON is read where it lies in the batch; the columns that repeat from row to row are read once
    /// while they do, and the skim's buffers are reused (`RowMemo`).
    init(_ batch: StoredEventBatch, row index: Int, columns: inout RowMemo) {
        let row = batch.rows[index]
        let json = batch.bytes[row.json.range]
        guard JSONMembers.ranges(in: json, keys: Self.members, into: &columns.members) else {
            self.init(
                EventStore.json(
                    StoredEventRow(
                        sequence: row.sequence, workspaceKey: "", installID: batch.string(row.installID),
                        receivedAt: row.receivedAt, correctedTimestamp: row.correctedTimestamp, json: Array(json))))
            return
        }
        self.init(
            sequence: row.sequence, eventID: batch.string(row.eventID),
            type: columns.type.value(batch, row.type, EventType.init(rawValue:)) ?? .unknown(""),
            installID: columns.installID.value(batch, row.installID) ?? "",
            customerID: columns.customerID.value(batch, row.customerID), correctedTimestamp: row.correctedTimestamp,
            configRevision: row.configRevision,
            placement: columns.placement.value(batch, row.placement, Placement.init),
            visitID: columns.visitID.value(batch, row.visitID),
            campaignID: columns.campaignID.value(batch, row.campaignID),
            variantID: columns.variantID.value(batch, row.variantID), arm: columns.arm.value(batch, row.arm, Arm.init))
        let found = columns.members
        key = JSONMembers.string(json, found[1])
        if let range = found[3] {
            demo =
                json[range.lowerBound] == UInt8(ascii: "t")
                ? true : json[range.lowerBound] == UInt8(ascii: "f") ? false : nil
        }
        if let range = found[0] {
            let screenJSON = json[range]
            if JSONMembers.ranges(in: screenJSON, keys: Self.screenMembers, into: &columns.screenMembers) {
                let parts = columns.screenMembers
                // Most screens have a type alone: no array and no join for them.
                if parts[1] == nil && parts[2] == nil {
                    screen = JSONMembers.string(screenJSON, parts[0]) ?? ""
                } else {
                    screen = parts.compactMap { JSONMembers.string(screenJSON, $0) }.joined(separator: " ")
                }
            }
        }
        if let range = found[2] {
            switch json[range.lowerBound] {
            case UInt8(ascii: "\""):
                if let token = JSONMembers.string(json, range), !token.isEmpty { preview = .token(token) }
            case UInt8(ascii: "t"): preview = .flag
            default: break
            }
        }
        if found[4] != nil {
            treatments = Self.claims(JSONMembers.value(json, found[4]))
        }
    }
}
