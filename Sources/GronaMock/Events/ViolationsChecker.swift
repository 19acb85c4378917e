import GronaMockJSON

/// When a campaign was killed, and revived if it was, on the server's clock (Unix epoch milliseconds) and in
/// configuration revisions. Open (`revivedAt` nil) while the campaign is still killed.
package struct KillInterval: Sendable, Equatable {
    package var killedAt: Int64
    /// The first revision served with the campaign killed.
    package var killedRevision: Int64
    package var revivedAt: Int64?
    /// The first revision served with the campaign live again.
    package var revivedRevision: Int64?

    package init(killedAt: Int64, killedRevision: Int64, revivedAt: Int64? = nil, revivedRevision: Int64? = nil) {
        self.killedAt = killedAt
        self.killedRevision = killedRevision
        self.revivedAt = revivedAt
        self.revivedRevision = revivedRevision
    }
}

/// Checks one workspace's stored events against its configuration: a pure function of the events, the
/// workspace, the campaigns' kill history and which grants were issued. Feed the events oldest first with
/// `add`, then read `finish()`.
///
/// The rules are `ViolationRule`; the checks of one event are in `ViolationsChecker+Rules.swift`, the two
/// that need the whole stream in `VisitLedger`, and how a stored event is read in `CheckedEvent`.
package struct ViolationsChecker {
    /// How long after a kill an event without `configRevision` is still forgiven: the SDK applies a kill at
    /// once, but only once its configuration refresh lands.
    package static let defaultGraceMilliseconds: Int64 = 5_000

    package let workspace: Workspace
    /// Per campaign id, oldest first.
    package let kills: [String: [KillInterval]]
    package let graceMilliseconds: Int64
    /// Whether the server issued a grant for (customerID, campaignID, variantID).
    package let grantIssued: (_ customerID: String, _ campaignID: String, _ variantID: String) -> Bool

    package private(set) var checkedEvents = 0
    /// The violations of single events, in the order found.
    private var found: [Violation] = []
    /// `repeated_in_visit` and `action_without_served`, decided in `finish`.
    private var visits = VisitLedger()
    /// The last unit's assignments: a visit's events share their unit, and each assignment is a SHA-256.
    var assignments = AssignmentMemo()
    /// Whether violations carry their sentence. A summary only counts them by rule, and in a workspace where
    /// every visit violates, writing the sentences was a fifth of its scan.
    var describes = true
    /// The events the visit at hand's ledger keeps in memory for its end (`VisitLedger.keptEvents`).
    var keptEvents: Int { visits.keptEvents }
    /// Whether the visit at hand's ledger moved to disk (`VisitLedger.isSpilled`).
    var visitIsSpilled: Bool { visits.isSpilled }
    /// The kept events past which a visit moves to disk (`VisitLedger.memoryBound`), and the memory of its
    /// sorts there: for the scan in visit order, which decides each visit at its end.
    var visitMemoryBound: Int? {
        get { visits.memoryBound }
        set { visits.memoryBound = newValue }
    }
    var visitSpillMemoryLimit: Int {
        get { visits.spillMemoryLimit }
        set { visits.spillMemoryLimit = newValue }
    }
    /// The one-event violations found and not yet taken (`takeEventViolations`).
    var untakenViolations: Int { found.count }
    /// `campaign(_:)`'s last answer.
    private var lastCampaign: (id: String, campaign: Campaign?)?

    package init(
        workspace: Workspace, kills: [String: [KillInterval]] = [:],
        graceMilliseconds: Int64 = ViolationsChecker.defaultGraceMilliseconds,
        grantIssued: @escaping (_ customerID: String, _ campaignID: String, _ variantID: String) -> Bool
    ) {
        self.workspace = workspace
        self.kills = kills
        self.graceMilliseconds = graceMilliseconds
        self.grantIssued = grantIssued
    }

    /// Every violation in `events` (stored events as `GET /_mock/events` lists them), in one call.
    package static func check(
        _ events: [JSONValue], workspace: Workspace, kills: [String: [KillInterval]] = [:],
        graceMilliseconds: Int64 = defaultGraceMilliseconds,
        grantIssued: @escaping (_ customerID: String, _ campaignID: String, _ variantID: String) -> Bool
    ) -> [Violation] {
        var checker = ViolationsChecker(
            workspace: workspace, kills: kills, graceMilliseconds: graceMilliseconds, grantIssued: grantIssued)
        for event in events { checker.add(event) }
        return checker.finish()
    }

    /// Checks one stored event: its JSON plus the server's `sequence`, `installID` and `correctedTimestamp`.
    package mutating func add(_ stored: JSONValue) {
        add(CheckedEvent(stored))
    }

    /// Checks one stored event, read already, with what the filters need to know of it (kept with the event
    /// when its visit's ledger keeps it, to name in a violation decided when the visit ends: `decideVisit`); its
    /// own violations are found at once.
    mutating func add(_ event: CheckedEvent, facts: EventFacts? = nil) {
        checkedEvents += 1
        checkDemo(event)
        if event.isOne(of: .purchase) { return checkPurchase(event) }
        guard let campaignID = event.campaignID, let variantID = event.variantID else { return }
        visits.collect(event, campaignID: campaignID, facts: facts)
        checkEvent(event, campaignID: campaignID, variantID: variantID)
    }

    /// The rules of one placement event with a campaign and variant.
    private mutating func checkEvent(_ event: CheckedEvent, campaignID: String, variantID: String) {
        checkArm(event)
        guard let campaign = campaign(campaignID) else {
            report(
                .unknownCampaignOrVariant, event,
                "\(event.kind) names campaign \(Quote.text(campaignID)), which is not in the configuration.")
            return
        }
        if let placement = event.placement, placement != campaign.placement {
            report(
                .wrongPlacement, event,
                "\(event.kind) on placement \(placement), but campaign \(Quote.text(campaign.id)) is on "
                    + "\(campaign.placement).")
        }
        checkKill(event, campaign)
        guard let variant = campaign.variants.first(where: { $0.id == variantID }) else {
            report(
                .unknownCampaignOrVariant, event,
                "\(event.kind) names variant \(Quote.text(variantID)), which is not a variant of campaign "
                    + "\(Quote.text(campaign.id)).")
            return
        }
        checkAssignment(event, campaign, variant)
        checkGrant(event, campaign, variant)
    }

    /// The violations found, ordered by their first event and then by rule.
    package func finish() -> [Violation] {
        var all = found
        visits.appendViolations(describing: describes, to: &all)
        Self.order(&all)
        return all
    }

    /// The violations of the events added since the last take, into `violations` (its storage reused), ordered:
    /// a scan in visit order takes them after every event, so that what it holds never grows with the visit
    /// (one visit where every event violates was held whole; issue 32). With every visit violating, making a
    /// new array per event was an allocation for every violation.
    mutating func takeEventViolations(into violations: inout [Violation]) {
        violations.removeAll(keepingCapacity: true)
        swap(&violations, &found)
        Self.order(&violations)
    }

    /// Hands the violations of the visit that ended (`repeated_in_visit`, `action_without_served`) to `body`,
    /// ordered, each with what the filters need to know of its events, until it answers false (false then), and
    /// forgets the visit, ready for the next: a scan in visit order hands the checker one visit at a time.
    /// Throws when a visit moved to disk could not be read back whole.
    mutating func decideVisit(_ body: (Violation, (Int64) -> EventFacts?) -> Bool) throws(StorageError) -> Bool {
        defer { visits.removeAll() }
        return try visits.decide(describing: describes, body)
    }

    /// Ordered by their first event and then by rule.
    static func order(_ violations: inout [Violation]) {
        guard violations.count > 1 else { return }
        violations.sort { ($0.events.first ?? 0, $0.rule) < ($1.events.first ?? 0, $1.rule) }
    }

    /// The workspace's campaign `id`, remembered for the next event: a visit's events mostly name the campaign
    /// the one before named, and the workspace's list is searched in order.
    private mutating func campaign(_ id: String) -> Campaign? {
        if let last = lastCampaign, last.id == id { return last.campaign }
        let found = workspace.campaign(id)
        lastCampaign = (id, found)
        return found
    }

    /// Records a violation of `rule` by one event.
    mutating func report(_ rule: ViolationRule, _ event: CheckedEvent, _ message: @autoclosure () -> String) {
        let text = describes ? message() : ""
        report(rule, event, sentence: .text(text))
    }

    /// Records a violation of `rule` by one event, its sentence kept as its parts (`ViolationSentence`).
    mutating func report(_ rule: ViolationRule, _ event: CheckedEvent, sentence: ViolationSentence) {
        found.append(
            Violation(
                rule: rule, events: [event.sequence], eventIDs: [event.eventID],
                sentence: describes ? sentence : .text("")))
    }
}
