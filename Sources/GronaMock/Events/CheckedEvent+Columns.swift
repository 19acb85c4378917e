extension CheckedEvent {
    /// The members read from the JSON: the rest come from the row's columns, which the validator filled from
    /// the same JSON. `demo` is read here too, since its column cannot tell "false" from "not said".
    fileprivate static let members: [StaticString] = ["screen", "key", "preview", "demo", "treatments"]
    fileprivate static let screenMembers: [StaticString] = ["type", "id", "name"]

    /// Where the skim of an event's JSON (`JSONMembers`) found the members read from it, then its screen's, as
    /// indices of its batch's bytes; `readable` false when the JSON could not be skimmed (it is then parsed
    /// whole).
    struct Skim: Sendable {
        var readable = false
        var screen: Range<Int>?
        var key: Range<Int>?
        var preview: Range<Int>?
        var demo: Range<Int>?
        var treatments: Range<Int>?
        var screenType: Range<Int>?
        var screenID: Range<Int>?
        var screenName: Range<Int>?

        init() {}

        /// Skims row `index` of `batch`, with `members` and `screenMembers` as the skim's buffers.
        init(
            _ batch: StoredEventBatch, row index: Int, members: inout [Range<Int>?],
            screenMembers: inout [Range<Int>?]
        ) {
            let json = batch.bytes[batch.rows[index].json.range]
            guard JSONMembers.ranges(in: json, keys: CheckedEvent.members, into: &members) else { return }
            readable = true
            (screen, key, preview, demo, treatments) = (members[0], members[1], members[2], members[3], members[4])
            if let screen,
                JSONMembers.ranges(in: json[screen], keys: CheckedEvent.screenMembers, into: &screenMembers)
            {
                (screenType, screenID, screenName) = (screenMembers[0], screenMembers[1], screenMembers[2])
            }
        }
    }

    /// Skims every row of `batch` into its `skims`, on a scan's reading thread (`PrefetchingScan`'s `prepare`),
    /// for the chunks it hands over while the checker has work waiting: the skim is a tenth of the checker's
    /// work, done by whichever of the two threads is the less busy (issue 32). A chunk not skimmed there is
    /// skimmed row by row as it is checked.
    @Sendable static func skim(_ batch: inout StoredEventBatch) {
        var members: [Range<Int>?] = []
        var screenMembers: [Range<Int>?] = []
        var skims: [Skim] = []
        skims.reserveCapacity(batch.count)
        for index in 0..<batch.count {
            skims.append(Skim(batch, row: index, members: &members, screenMembers: &screenMembers))
        }
        batch.skims = skims
    }

    /// Reads row `index` of a scan's batch from its columns and a skim of its JSON: the same fields as
    /// `init(_: JSONValue)` gives for the event as the inspection API lists it, at a fraction of the cost. The
    /// JSON is read where it lies in the batch, skimmed already when the batch was (`skim(_:)`); the columns
    /// that repeat from row to row are read once while they do, and the skim's buffers are reused (`RowMemo`).
    init(_ batch: StoredEventBatch, row index: Int, columns: inout RowMemo) {
        let row = batch.rows[index]
        let json = batch.bytes[row.json.range]
        let skim =
            batch.skims.count == batch.count
            ? batch.skims[index]
            : Skim(batch, row: index, members: &columns.members, screenMembers: &columns.screenMembers)
        guard skim.readable else {
            self.init(
                EventStore.json(
                    StoredEventRow(
                        sequence: row.sequence, workspaceKey: "", installID: batch.string(row.installID),
                        receivedAt: row.receivedAt, correctedTimestamp: row.correctedTimestamp, json: Array(json))))
            return
        }
        // The members from the JSON first, then one initialisation: assigning them after it copied the event
        // (retaining every string it holds), once per event read.
        var demo: Bool?
        if let range = skim.demo {
            demo =
                json[range.lowerBound] == UInt8(ascii: "t")
                ? true : json[range.lowerBound] == UInt8(ascii: "f") ? false : nil
        }
        var screen = ""
        if let range = skim.screen {
            let screenJSON = json[range]
            // Most screens have a type alone: no array and no join for them.
            if skim.screenID == nil && skim.screenName == nil {
                screen = JSONMembers.string(screenJSON, skim.screenType) ?? ""
            } else {
                // The parts present, joined by spaces as they are read: no arrays of them.
                var parts = 0
                func add(_ range: Range<Int>?) {
                    guard let text = JSONMembers.string(screenJSON, range) else { return }
                    if parts > 0 { screen += " " }
                    screen += text
                    parts += 1
                }
                add(skim.screenType)
                add(skim.screenID)
                add(skim.screenName)
            }
        }
        var preview: Preview?
        if let range = skim.preview {
            switch json[range.lowerBound] {
            case UInt8(ascii: "\""):
                if let token = JSONMembers.string(json, range), !token.isEmpty { preview = .token(token) }
            case UInt8(ascii: "t"): preview = .flag
            default: break
            }
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
            variantID: columns.variantID.value(batch, row.variantID), arm: columns.arm.value(batch, row.arm, Arm.init),
            demo: demo, screen: screen, key: JSONMembers.string(json, skim.key), preview: preview,
            treatments: skim.treatments == nil ? [] : Self.claims(JSONMembers.value(json, skim.treatments)))
    }
}
