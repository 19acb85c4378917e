/// A read of one workspace's stored events in visit order, for the checks that judge a visit as a whole
/// (`GET /_mock/events/violations`): each visit's events arrive together, so a reader needs to hold one visit
/// at a time, never the stream.
///
/// **Order.** By `installID`, then `visitID` (events without one first), then `sequence`, strings compared by
/// their UTF-8 bytes (SQLite's BINARY collation; PostgreSQL's `COLLATE "C"`).
/// **Bounds.** Only events with `sequence <= throughSequence`, so a scan that resumes later sees the same
/// events as the one it continues while new ones arrive; from `start` inclusive when set.
public struct EventScan: Sendable, Equatable {
    public var workspace: String
    /// Only this install's events, when set.
    public var installID: String?
    /// The first position read (inclusive); nil reads from the start.
    public var start: EventScanPosition?
    public var throughSequence: Int64

    public init(workspace: String, installID: String? = nil, start: EventScanPosition? = nil, throughSequence: Int64) {
        self.workspace = workspace
        self.installID = installID
        self.start = start
        self.throughSequence = throughSequence
    }
}

/// A place in visit order: `(installID, visitID, sequence)`, a nil `visitID` before every visit of the
/// install.
public struct EventScanPosition: Sendable, Equatable, Hashable {
    public var installID: String
    public var visitID: String?
    public var sequence: Int64

    public init(installID: String, visitID: String?, sequence: Int64) {
        self.installID = installID
        self.visitID = visitID
        self.sequence = sequence
    }
}

/// A stored event with every indexed column, as a scan hands it over: the checks read the columns, and only
/// the few fields that have none (`screen`, `key`, `preview`, a purchase's `treatments`) from `json`.
public struct StoredEventColumns: Sendable, Equatable {
    public var sequence: Int64
    public var eventID: String
    public var type: String
    public var timestamp: Int64
    public var receivedAt: Int64
    public var correctedTimestamp: Int64
    public var installID: String
    public var customerID: String?
    public var visitID: String?
    public var campaignID: String?
    public var variantID: String?
    public var arm: String?
    public var placement: String?
    public var demo: Bool
    public var configRevision: Int64?
    public var json: [UInt8]

    public init(
        sequence: Int64, eventID: String, type: String, timestamp: Int64, receivedAt: Int64,
        correctedTimestamp: Int64, installID: String, customerID: String?, visitID: String?, campaignID: String?,
        variantID: String?, arm: String?, placement: String?, demo: Bool, configRevision: Int64?, json: [UInt8]
    ) {
        self.sequence = sequence
        self.eventID = eventID
        self.type = type
        self.timestamp = timestamp
        self.receivedAt = receivedAt
        self.correctedTimestamp = correctedTimestamp
        self.installID = installID
        self.customerID = customerID
        self.visitID = visitID
        self.campaignID = campaignID
        self.variantID = variantID
        self.arm = arm
        self.placement = placement
        self.demo = demo
        self.configRevision = configRevision
        self.json = json
    }

    /// Where the event stands in visit order.
    public var position: EventScanPosition {
        EventScanPosition(installID: installID, visitID: visitID, sequence: sequence)
    }
}
