import GronaHTTP
import GronaJSON

/// An accepted event as it is stored: the indexed columns the inspection API filters on, and the event's
/// full JSON.
struct EventRecord: Sendable {
    var workspaceKey: String
    var eventID: String
    var type: String
    var timestamp: Int64
    var receivedAt: Int64
    /// `timestamp + (receivedAt - sentAt)`: the event's time on the server's clock (contract §7).
    var correctedTimestamp: Int64
    var installID: String
    var customerID: String?
    var sessionID: String?
    var visitID: String?
    var campaignID: String?
    var variantID: String?
    var arm: String?
    var placement: String?
    var demo: Bool
    var configRevision: Int64?
    /// A purchase's claimed treatments, kept apart for attribution in the summary.
    var treatments: [ClaimedTreatment]
    var totalMinor: Int64?
    var json: [UInt8]
}

/// A treatment a purchase says the order backend applied.
struct ClaimedTreatment: Sendable {
    var campaignID: String
    var variantID: String
    var placement: String
    var type: String
    var valueMilli: Int64
}

/// An event that failed validation, kept with its reason for inspection (contract §7).
struct RejectedEventRecord: Sendable {
    var workspaceKey: String
    var index: Int
    var eventID: String?
    var field: String
    var reason: String
    var receivedAt: Int64
    var installID: String
    var json: [UInt8]
}

/// One request's events, validated and ready to write.
struct EventBatch: Sendable {
    var workspaceKey: String
    var accepted: [EventRecord]
    var rejected: [RejectedEventRecord]
}

/// What writing a batch did: `accepted` excludes duplicates.
struct EventBatchResult: Sendable {
    var accepted: Int
    var duplicates: Int
}
