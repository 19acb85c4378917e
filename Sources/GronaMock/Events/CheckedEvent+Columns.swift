extension CheckedEvent {
    /// The members read from the JSON: the rest come from the row's columns, which the validator filled from
    /// the same JSON. `demo` is read here too, since its column cannot tell "false" from "not said".
    private static let members: [StaticString] = ["screen", "key", "preview", "demo", "treatments"]
    private static let screenMembers: [StaticString] = ["type", "id", "name"]

    /// Reads a stored event from its columns and a skim of its JSON (`JSONMembers`): the same fields as
    /// `init(_: JSONValue)` gives for the event as the inspection API lists it, at a fraction of the cost.
    init(_ row: StoredEventColumns) {
        let json = row.json[...]
        guard let found = JSONMembers.ranges(in: json, keys: Self.members) else {
            self.init(
                EventStore.json(
                    StoredEventRow(
                        sequence: row.sequence, workspaceKey: "", installID: row.installID, receivedAt: row.receivedAt,
                        correctedTimestamp: row.correctedTimestamp, json: row.json)))
            return
        }
        self.init(
            sequence: row.sequence, eventID: row.eventID, type: EventType(rawValue: row.type), installID: row.installID,
            customerID: row.customerID, correctedTimestamp: row.correctedTimestamp,
            configRevision: row.configRevision, placement: row.placement.map(Placement.init(rawValue:)),
            visitID: row.visitID, campaignID: row.campaignID, variantID: row.variantID,
            arm: row.arm.map(Arm.init(rawValue:)))
        key = JSONMembers.string(json, found[1])
        if let range = found[3] {
            demo =
                json[range.lowerBound] == UInt8(ascii: "t")
                ? true : json[range.lowerBound] == UInt8(ascii: "f") ? false : nil
        }
        if let range = found[0] {
            let screenJSON = json[range]
            if let parts = JSONMembers.ranges(in: screenJSON, keys: Self.screenMembers) {
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
