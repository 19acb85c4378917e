/// What the engine hands to storage, and what storage hands back: plain values, no backend types.

/// An accepted event as it is stored: the indexed fields the inspection API filters on, and the event's
/// full JSON.
public struct EventRecord: Sendable, Equatable {
    public var workspaceKey: String
    public var eventID: String
    public var type: String
    public var timestamp: Int64
    public var receivedAt: Int64
    /// `timestamp + (receivedAt - sentAt)`: the event's time on the server's clock (contract §7).
    public var correctedTimestamp: Int64
    public var installID: String
    public var customerID: String?
    public var sessionID: String?
    public var visitID: String?
    public var campaignID: String?
    public var variantID: String?
    public var arm: String?
    public var placement: String?
    public var demo: Bool
    public var configRevision: Int64?
    /// A purchase's claimed treatments, kept apart for attribution in the summary.
    public var treatments: [ClaimedTreatment]
    public var totalMinor: Int64?
    public var json: [UInt8]

    public init(
        workspaceKey: String, eventID: String, type: String, timestamp: Int64, receivedAt: Int64,
        correctedTimestamp: Int64, installID: String, customerID: String? = nil, sessionID: String? = nil,
        visitID: String? = nil, campaignID: String? = nil, variantID: String? = nil, arm: String? = nil,
        placement: String? = nil, demo: Bool = false, configRevision: Int64? = nil, treatments: [ClaimedTreatment] = [],
        totalMinor: Int64? = nil, json: [UInt8]
    ) {
        self.workspaceKey = workspaceKey
        self.eventID = eventID
        self.type = type
        self.timestamp = timestamp
        self.receivedAt = receivedAt
        self.correctedTimestamp = correctedTimestamp
        self.installID = installID
        self.customerID = customerID
        self.sessionID = sessionID
        self.visitID = visitID
        self.campaignID = campaignID
        self.variantID = variantID
        self.arm = arm
        self.placement = placement
        self.demo = demo
        self.configRevision = configRevision
        self.treatments = treatments
        self.totalMinor = totalMinor
        self.json = json
    }
}

/// A treatment a purchase says the order backend applied.
public struct ClaimedTreatment: Sendable, Equatable {
    public var campaignID: String
    public var variantID: String
    public var placement: String
    public var type: String
    public var valueMilli: Int64

    public init(campaignID: String, variantID: String, placement: String, type: String, valueMilli: Int64) {
        self.campaignID = campaignID
        self.variantID = variantID
        self.placement = placement
        self.type = type
        self.valueMilli = valueMilli
    }
}

/// An event that failed validation, kept with its reason for inspection (contract §7).
public struct RejectedEventRecord: Sendable, Equatable {
    public var workspaceKey: String
    /// The event's position in its batch.
    public var index: Int
    public var eventID: String?
    public var field: String
    public var reason: String
    public var receivedAt: Int64
    public var installID: String
    public var json: [UInt8]

    public init(
        workspaceKey: String, index: Int, eventID: String?, field: String, reason: String, receivedAt: Int64,
        installID: String, json: [UInt8]
    ) {
        self.workspaceKey = workspaceKey
        self.index = index
        self.eventID = eventID
        self.field = field
        self.reason = reason
        self.receivedAt = receivedAt
        self.installID = installID
        self.json = json
    }
}

/// One request's events, validated and ready to write.
public struct EventBatch: Sendable {
    public var workspaceKey: String
    /// The accepted events, packed on the event loop so the writer only binds them.
    public var accepted: EventRows
    public var rejected: [RejectedEventRecord]
    /// The rejected events by the type they claimed, for the per-type metrics. The loop that validated the
    /// batch fills it; a batch made elsewhere counts its rejections as without a valid type.
    package var rejectedTypes: EventTypeCounts

    public init(workspaceKey: String, accepted: EventRows, rejected: [RejectedEventRecord]) {
        self.workspaceKey = workspaceKey
        self.accepted = accepted
        self.rejected = rejected
        rejectedTypes = EventTypeCounts()
        rejectedTypes.add(slot: EventTypeCounts.invalidSlot, rejected.count)
    }

    public init(workspaceKey: String, accepted: [EventRecord], rejected: [RejectedEventRecord]) {
        self.init(workspaceKey: workspaceKey, accepted: EventRows(accepted), rejected: rejected)
    }
}

/// What writing a batch did: `accepted` excludes duplicates, whose positions in the batch's `accepted` rows
/// are listed (the per-type metrics count them by the duplicate's type).
public struct EventBatchResult: Sendable, Equatable {
    public var accepted: Int
    /// Positions in `EventBatch.accepted` of the events already stored (or repeated within the batch), in
    /// increasing order.
    public var duplicateIndexes: [Int]

    public var duplicates: Int { duplicateIndexes.count }

    public init(accepted: Int, duplicateIndexes: [Int]) {
        self.accepted = accepted
        self.duplicateIndexes = duplicateIndexes
    }
}

/// A stored event as read back: its sequence (arrival order, the listing cursor), the server's fields, and
/// the JSON the SDK sent.
public struct StoredEventRow: Sendable, Equatable {
    public var sequence: Int64
    public var workspaceKey: String
    public var installID: String
    public var receivedAt: Int64
    public var correctedTimestamp: Int64
    public var json: [UInt8]

    public init(
        sequence: Int64, workspaceKey: String, installID: String, receivedAt: Int64, correctedTimestamp: Int64,
        json: [UInt8]
    ) {
        self.sequence = sequence
        self.workspaceKey = workspaceKey
        self.installID = installID
        self.receivedAt = receivedAt
        self.correctedTimestamp = correctedTimestamp
        self.json = json
    }
}

/// A rejected event as read back.
public struct StoredRejectedEvent: Sendable, Equatable {
    public var sequence: Int64
    public var record: RejectedEventRecord

    public init(sequence: Int64, record: RejectedEventRecord) {
        self.sequence = sequence
        self.record = record
    }
}

/// The summary's raw figures for one workspace.
public struct CampaignCounts: Sendable, Equatable {
    /// Events of one type for one campaign, variant, arm and demo flag.
    public struct TypeCount: Sendable, Equatable {
        public var campaignID: String
        public var variantID: String
        public var arm: String
        public var demo: Bool
        public var type: String
        public var count: Int64

        public init(campaignID: String, variantID: String, arm: String, demo: Bool, type: String, count: Int64) {
            self.campaignID = campaignID
            self.variantID = variantID
            self.arm = arm
            self.demo = demo
            self.type = type
            self.count = count
        }
    }

    /// Purchases whose claimed treatments name a campaign and variant, each purchase once.
    public struct Attributed: Sendable, Equatable {
        public var campaignID: String
        public var variantID: String
        public var demo: Bool
        public var purchases: Int64
        public var revenueMinor: Int64

        public init(campaignID: String, variantID: String, demo: Bool, purchases: Int64, revenueMinor: Int64) {
            self.campaignID = campaignID
            self.variantID = variantID
            self.demo = demo
            self.purchases = purchases
            self.revenueMinor = revenueMinor
        }
    }

    public var types: [TypeCount]
    public var attributed: [Attributed]

    public init(types: [TypeCount], attributed: [Attributed]) {
        self.types = types
        self.attributed = attributed
    }
}

/// A signed configuration as stored for its workspace: the revision, what it was computed from, and the
/// exact bytes served.
public struct StoredConfigRevision: Sendable, Equatable {
    public var revision: Int64
    /// SHA-256 over everything that makes a revision (payload content and signing keys), not its bytes:
    /// signatures are randomised, so the same content signs differently each time.
    public var contentHash: [UInt8]
    public var issuedAt: Int64
    public var document: [UInt8]

    public init(revision: Int64, contentHash: [UInt8], issuedAt: Int64, document: [UInt8]) {
        self.revision = revision
        self.contentHash = contentHash
        self.issuedAt = issuedAt
        self.document = document
    }
}
