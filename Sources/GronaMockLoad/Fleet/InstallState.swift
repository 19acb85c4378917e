import GronaMock

/// One simulated SDK install: who it is, what it logged and has not yet had acknowledged, the configuration
/// and grants it holds, and what its shopper has in the basket. Kept in one array for the whole fleet, so a
/// million installs are a million of these and nothing more.
struct InstallState {
    /// The customer id for an identified shopper (contract §5's customer unit), nil for an anonymous one.
    var customerID: String?
    var launched = false
    /// Index into the fleet's verified configurations of the one this install holds.
    var configuration = 0
    var configRequestInFlight = false
    var nextCounter: UInt32 = 0
    var visits: UInt32 = 0

    /// Logged events not yet in a batch: `,{…}` each; `pendingEnds` marks where each ends.
    var pending: [UInt8] = []
    var pendingStart = 0
    var pendingEnds: [Int] = []
    var pendingHead = 0
    /// The counter of the first pending event (events are numbered in the order they are logged, and batches
    /// take them in that order, so a batch is a range of counters).
    var pendingFirstCounter: UInt32 = 0
    /// When the oldest pending event was logged, and when the pending events first filled a batch.
    var oldestPendingAt: UInt64 = 0
    var fullSince: UInt64?
    /// The deadline of the batch-age timer already scheduled, so that each visit does not add another.
    var ageTimerAt: UInt64 = 0
    /// The batch being sent or waiting to be retried: one at a time, as the SDK sends.
    var batch: OutgoingBatch?
    /// Offline until this time (monotonic ns); 0 when online.
    var offlineUntil: UInt64 = 0
    /// When the install last came back online: no batch is due before it, since the time offline is the
    /// device's and must not count as the service's latency.
    var onlineSince: UInt64 = 0
    /// The run has ended: send what is pending without waiting for the batch age.
    var flushing = false

    /// Assignment per campaign index of the configuration it was drawn for, only for the campaigns this install
    /// has met: a verified configuration may hold 50,000 campaigns (or a variant index beyond Int16), and a
    /// million installs must not each keep a slot per campaign.
    var assignments: [Int: CachedAssignment] = [:]
    /// The revision and campaign count the cache was drawn for; either changing starts it afresh.
    var assignmentRevision: Int64?
    var assignmentCampaignCount = 0
    var basket: [UInt16] = []
    var grants: [HeldGrant] = []
    var grantsValidUntil: Int64 = 0
    var grantRequestInFlight = false
    var nextGrantRequestAt: UInt64 = 0
    /// Offer campaigns served to this shopper since the last purchase (the order backend applies their grants).
    var servedOffers: [String] = []

    var pendingCount: Int { pendingEnds.count - pendingHead }
}

/// An install's assignment in one campaign (contract §5): no variant (the weights do not reach its bucket), or
/// a variant by index, in the holdout or not.
enum CachedAssignment: Equatable {
    case none
    case variant(Int, heldOut: Bool)
}

/// A batch on its way: the events' counters, the body as sent (resent byte for byte on a retry, so the
/// server sees the same eventIDs), and its attempts.
struct OutgoingBatch {
    var firstCounter: UInt32
    var count: Int
    var body: [UInt8]
    var attempts = 0
    var inFlight = false
    /// When the next attempt is due (its intended start).
    var dueAt: UInt64
}

/// A verified grant (contract §6) an install holds for its customer.
struct HeldGrant {
    var campaignID: String
    var variantID: String
    var placement: String
    var treatment: Treatment
    var expiresAt: Int64
}
