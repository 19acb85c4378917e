import GronaMockJSON

/// One line of a replay file: an event in the contract's shape (§7) with the install that sent it, as
/// `grona-mock events export` writes them (the server's own fields `sequence`, `workspaceKey`, `receivedAt`
/// and `correctedTimestamp` are dropped), or as a capture from a pipeline holds them.
struct ReplayEvent {
    /// Fields the server adds to what an SDK sent, and the envelope's `installID`: not sent in the event.
    static let serverFields: Set<String> = [
        "sequence", "workspaceKey", "receivedAt", "correctedTimestamp", "installID",
    ]

    var installID: String
    /// Unix epoch milliseconds, as logged on the device: the replay keeps the gaps between them.
    var timestamp: Int64
    var visitID: String?
    /// The event's members, without the server's fields; `eventID` and `timestamp` are replaced when sent.
    var fields: JSONObject

    /// The event on `line`, or why it is not one (the caller adds the line number).
    init(line: [UInt8]) throws(ReplayFileError) {
        guard let value = try? JSONParser().parse(line) else { throw ReplayFileError("not JSON") }
        guard let object = value.objectValue else { throw ReplayFileError("not a JSON object") }
        guard let install = value["installID"]?.stringValue, (1...256).contains(install.utf8.count) else {
            throw ReplayFileError("no installID (a string of 1 to 256 bytes)")
        }
        guard value["eventID"]?.stringValue != nil else { throw ReplayFileError("no eventID string") }
        guard value["type"]?.stringValue != nil else { throw ReplayFileError("no type string") }
        guard let timestamp = value["timestamp"]?.int64Value, timestamp >= 0 else {
            throw ReplayFileError("no timestamp (whole Unix epoch milliseconds)")
        }
        installID = install
        self.timestamp = timestamp
        visitID = value["visitID"]?.stringValue
        fields = JSONObject(object.members.filter { !Self.serverFields.contains($0.key) })
    }

    /// `,{…}` as a batch holds it: a fresh `eventID`, the replayed `timestamp`, and the visit's and order's ids
    /// prefixed with the run's tag, so that a visit replayed twice is two visits, not one with its events twice.
    func encoded(eventID: [UInt8], timestamp: Int64, runTag: String, into out: inout [UInt8]) {
        var fields = self.fields
        fields.set("eventID", .string(String(decoding: eventID, as: UTF8.self)))
        fields.set("timestamp", .number(JSONNumber(timestamp)))
        for key in ["visitID", "orderID"] {
            if let id = fields[key]?.stringValue { fields.set(key, .string(runTag + "-" + id)) }
        }
        out.append(UInt8(ascii: ","))
        out += JSONValue.object(fields).serialized()
    }
}
