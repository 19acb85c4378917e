import GronaHTTP
import GronaJSON

/// The SDK's side of the contract, checked on a stored event stream (contract §8, issue 6): what a correct
/// SDK never sends. Each rule has a stable id; docs/violations.md explains each with an example.
public enum ViolationRule: String, Sendable, CaseIterable, Comparable {
    /// More than one `eligible`, `anchor_visible`, `exposure` or `served` of one campaign in one visit.
    case repeatedInVisit = "repeated_in_visit"
    /// `exposure` or `served` in the `control` or `holdout` arm, where nothing is shown.
    case shownInControlOrHoldout = "shown_in_control_or_holdout"
    /// `action` or `dismiss` in a visit with no `served` of that campaign on that placement.
    case actionWithoutServed = "action_without_served"
    /// A campaign or variant id the workspace's configuration does not have.
    case unknownCampaignOrVariant = "unknown_campaign_or_variant"
    /// A placement other than the campaign's.
    case wrongPlacement = "wrong_placement"
    /// A variant or arm other than the one assignment (contract §5) gives the install or customer.
    case wrongAssignment = "wrong_assignment"
    /// An event for a campaign while it was killed, past the grace.
    case eventAfterKill = "event_after_kill"
    /// An offer shown, or its treatment claimed by a purchase, with no grant issued to that customer.
    case offerWithoutGrant = "offer_without_grant"
    /// `demo` contrary to the configuration's `demoMode`.
    case demoMismatch = "demo_mismatch"

    public static func < (lhs: ViolationRule, rhs: ViolationRule) -> Bool {
        (allCases.firstIndex(of: lhs) ?? 0) < (allCases.firstIndex(of: rhs) ?? 0)
    }
}

/// One breach: the rule, the stored events involved (by `sequence`, and their `eventID`s) and a sentence.
public struct Violation: Sendable, Equatable, CustomStringConvertible {
    public var rule: ViolationRule
    public var events: [Int64]
    public var eventIDs: [String]
    public var message: String

    public init(rule: ViolationRule, events: [Int64], eventIDs: [String], message: String) {
        self.rule = rule
        self.events = events
        self.eventIDs = eventIDs
        self.message = message
    }

    public var description: String { "\(rule.rawValue) \(events): \(message)" }

    public var json: JSONValue {
        .object([
            "rule": .string(rule.rawValue), "events": .array(events.map { .number(JSONNumber($0)) }),
            "eventIDs": .array(eventIDs.map { .string($0) }), "message": .string(message),
        ])
    }
}

/// When a campaign was killed, and revived if it was, on the server's clock (Unix epoch milliseconds) and in
/// configuration revisions. Open (`revivedAt` nil) while the campaign is still killed.
public struct KillInterval: Sendable, Equatable {
    public var killedAt: Int64
    /// The first revision served with the campaign killed.
    public var killedRevision: Int64
    public var revivedAt: Int64?
    /// The first revision served with the campaign live again.
    public var revivedRevision: Int64?

    public init(killedAt: Int64, killedRevision: Int64, revivedAt: Int64? = nil, revivedRevision: Int64? = nil) {
        self.killedAt = killedAt
        self.killedRevision = killedRevision
        self.revivedAt = revivedAt
        self.revivedRevision = revivedRevision
    }
}

/// Checks one workspace's stored events against its configuration: a pure function of the events, the
/// workspace, the campaigns' kill history and which grants were issued. Feed the events oldest first with
/// `add`, then read `finish()`.
public struct ViolationsChecker {
    /// How long after a kill an event without `configRevision` is still forgiven: the SDK applies a kill at
    /// once, but only once its configuration refresh lands.
    public static let defaultGraceMilliseconds: Int64 = 5_000

    public let workspace: Workspace
    /// Per campaign id, oldest first.
    public let kills: [String: [KillInterval]]
    public let graceMilliseconds: Int64
    /// Whether the server issued a grant for (customerID, campaignID, variantID).
    public let grantIssued: (_ customerID: String, _ campaignID: String, _ variantID: String) -> Bool

    public private(set) var checkedEvents = 0
    private var found: [Violation] = []
    /// Rule 1: each visit's once-only events, by what makes them the same.
    private var onceOnly: [VisitEventKey: [EventRef]] = [:]
    private var visitOrder: [VisitEventKey] = []
    /// Rule 3: visits that have a `served`, and the actions and dismissals to look up in them.
    private var servedVisits: Set<VisitKey> = []
    private var actions: [(VisitKey, EventRef, String)] = []

    static let onceOnlyTypes: Set<String> = ["eligible", "anchor_visible", "exposure", "served"]

    public init(
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
    public static func check(
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
    public mutating func add(_ stored: JSONValue) {
        checkedEvents += 1
        let event = StoredEvent(stored)
        checkDemo(event)
        if event.type == "purchase" {
            checkPurchase(event)
            return
        }
        guard let campaignID = event.campaignID, let variantID = event.variantID else { return }
        collectVisit(event, campaignID: campaignID)
        checkArm(event)
        guard let campaign = workspace.campaign(campaignID) else {
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
    public func finish() -> [Violation] {
        var all = found
        for key in visitOrder {
            guard let refs = onceOnly[key], refs.count > 1 else { continue }
            let sequences = refs.map { String($0.sequence) }.joined(separator: ", ")
            let place = "\(key.visit.placement) on \(key.screen)" + (key.key.map { ", key \(Quote.text($0))" } ?? "")
            all.append(
                Violation(
                    rule: .repeatedInVisit, events: refs.map(\.sequence), eventIDs: refs.map(\.eventID),
                    message:
                        "\(refs.count) \(key.type) events (sequences \(sequences)) for campaign "
                        + "\(Quote.text(key.visit.campaignID)) in visit \(Quote.text(key.visit.visitID)) (\(place)); "
                        + "the SDK logs \(key.type) at most once per visit."))
        }
        for (visit, ref, type) in actions where !servedVisits.contains(visit) {
            all.append(
                Violation(
                    rule: .actionWithoutServed, events: [ref.sequence], eventIDs: [ref.eventID],
                    message:
                        "\(Self.article(type)) \(type) (sequence \(ref.sequence)) for campaign "
                        + "\(Quote.text(visit.campaignID)) in visit \(Quote.text(visit.visitID)) on "
                        + "\(visit.placement), which has no served event."))
        }
        return all.sorted { ($0.events.first ?? 0, $0.rule) < ($1.events.first ?? 0, $1.rule) }
    }

    // MARK: - Rules

    /// Rule 9: every event is demo exactly when the configuration is in demo mode (contract, SDK's side).
    private mutating func checkDemo(_ event: StoredEvent) {
        if workspace.demoMode && event.demo != true {
            let said = event.demo == nil ? "does not say demo" : "says demo false"
            report(.demoMismatch, event, "\(event.kind) \(said), but the configuration is in demo mode.")
        } else if !workspace.demoMode && event.demo == true {
            report(
                .demoMismatch, event, "\(event.kind) says demo true, but demo mode is off.")
        }
    }

    /// Rules 4, 5 and 8 on a purchase's claimed treatments.
    private mutating func checkPurchase(_ event: StoredEvent) {
        for claim in event.treatments {
            let named = "\(Quote.text(claim.campaignID))/\(Quote.text(claim.variantID))"
            guard let campaign = workspace.campaign(claim.campaignID) else {
                report(
                    .unknownCampaignOrVariant, event,
                    "\(event.kind) claims a treatment of campaign \(Quote.text(claim.campaignID)), which is not in "
                        + "the configuration.")
                continue
            }
            guard campaign.variants.contains(where: { $0.id == claim.variantID }) else {
                report(
                    .unknownCampaignOrVariant, event,
                    "\(event.kind) claims variant \(Quote.text(claim.variantID)), which is not a variant of campaign "
                        + "\(Quote.text(campaign.id)).")
                continue
            }
            if let placement = claim.placement, placement != campaign.placement {
                report(
                    .wrongPlacement, event,
                    "\(event.kind) claims \(named) on placement \(placement), but the campaign is on "
                        + "\(campaign.placement).")
            }
            guard let customerID = event.customerID else {
                report(
                    .offerWithoutGrant, event,
                    "\(event.kind) claims \(named) but names no customer, and grants are issued to customers.")
                continue
            }
            if !grantIssued(customerID, campaign.id, claim.variantID) {
                report(
                    .offerWithoutGrant, event,
                    "\(event.kind) claims \(named), but no grant for it was issued to customer "
                        + "\(Quote.text(customerID)).")
            }
        }
    }

    /// Rules 1 and 3 gather their visits here and decide in `finish`.
    private mutating func collectVisit(_ event: StoredEvent, campaignID: String) {
        guard let visitID = event.visitID, let placement = event.placement else { return }
        let visit = VisitKey(installID: event.installID, visitID: visitID, placement: placement, campaignID: campaignID)
        let ref = EventRef(sequence: event.sequence, eventID: event.eventID)
        if Self.onceOnlyTypes.contains(event.type) {
            let key = VisitEventKey(visit: visit, screen: event.screen, key: event.key, type: event.type)
            if onceOnly[key] == nil { visitOrder.append(key) }
            onceOnly[key, default: []].append(ref)
            if event.type == "served" { servedVisits.insert(visit) }
        } else if event.type == "action" || event.type == "dismiss" {
            actions.append((visit, ref, event.type))
        }
    }

    /// Rule 2: nothing is shown in control or holdout (contract §5), so nothing is exposed or served there.
    private mutating func checkArm(_ event: StoredEvent) {
        guard event.type == "exposure" || event.type == "served", let arm = event.arm,
            arm == "control" || arm == "holdout"
        else { return }
        report(
            .shownInControlOrHoldout, event,
            "\(event.kind) in the \(arm) arm, where nothing is shown.")
    }

    /// Rule 7: the SDK applies a kill at once, even to content on screen. An event stamped with a revision
    /// that has the campaign killed is a breach whatever its time; one without a revision is judged by its
    /// corrected time, past the grace.
    private mutating func checkKill(_ event: StoredEvent, _ campaign: Campaign) {
        for interval in kills[campaign.id] ?? [] {
            if let revision = event.configRevision {
                guard revision >= interval.killedRevision,
                    interval.revivedRevision.map({ revision < $0 }) ?? true
                else { continue }
                report(
                    .eventAfterKill, event,
                    "\(event.kind) for campaign \(Quote.text(campaign.id)) from configuration "
                        + "revision \(revision), in which the campaign is killed (since revision "
                        + "\(interval.killedRevision)).")
                return
            }
            guard let time = event.correctedTimestamp, time >= interval.killedAt + graceMilliseconds,
                interval.revivedAt.map({ time < $0 }) ?? true
            else { continue }
            report(
                .eventAfterKill, event,
                "\(event.kind) for campaign \(Quote.text(campaign.id)) at \(time), "
                    + "\(time - interval.killedAt) ms after its kill at \(interval.killedAt) (grace "
                    + "\(graceMilliseconds) ms).")
            return
        }
    }

    /// Rule 6: the variant and arm are the ones contract §5 gives the unit (holdout first). A preview pins
    /// its variant instead, so only the pin is checked.
    private mutating func checkAssignment(_ event: StoredEvent, _ campaign: Campaign, _ variant: Variant) {
        if let preview = event.preview {
            guard case .token(let token) = preview, !isPinned(token, campaign.id, variant.id) else { return }
            report(
                .wrongAssignment, event,
                "\(event.kind) names preview \(Quote.text(token)), which does not pin variant "
                    + "\(Quote.text(variant.id)) of campaign \(Quote.text(campaign.id)) in the configuration.")
            return
        }
        let unit: String
        let unitName: String
        switch campaign.assignmentUnit {
        case .install:
            unit = event.installID
            unitName = "install \(Quote.text(unit))"
        case .customer:
            guard let customerID = event.customerID else {
                report(
                    .wrongAssignment, event,
                    "\(event.kind) for customer-unit campaign \(Quote.text(campaign.id)) has no "
                        + "customerID; a shopper who is not identified is in no customer-unit campaign.")
                return
            }
            unit = customerID
            unitName = "customer \(Quote.text(unit))"
        }
        let arm = event.arm ?? ""
        if Assignment.isHeldOut(unit, by: workspace.holdout) {
            if arm != "holdout" {
                report(
                    .wrongAssignment, event,
                    "\(event.kind) in the \(arm) arm, but \(unitName) is in the holdout.")
            }
            return
        }
        if arm == "holdout" {
            report(
                .wrongAssignment, event,
                "\(event.kind) in the holdout arm, but \(unitName) is not in the holdout.")
            return
        }
        guard let assigned = Assignment.variant(of: campaign, for: unit) else { return }
        if assigned.id != variant.id {
            report(
                .wrongAssignment, event,
                "\(event.kind) for variant \(Quote.text(variant.id)), but assignment gives "
                    + "\(unitName) variant \(Quote.text(assigned.id)) of campaign \(Quote.text(campaign.id)).")
        } else if arm != (variant.isControl ? "control" : "treatment") {
            report(
                .wrongAssignment, event,
                "\(event.kind) in the \(arm) arm, but variant \(Quote.text(variant.id)) is "
                    + (variant.isControl ? "a control." : "a treatment."))
        }
    }

    /// Rule 8: an offer renders only with a grant issued for its campaign and variant (contract, SDK's side).
    private mutating func checkGrant(_ event: StoredEvent, _ campaign: Campaign, _ variant: Variant) {
        guard event.type == "exposure" || event.type == "served", variant.componentType == "offer" else { return }
        guard let customerID = event.customerID else {
            report(
                .offerWithoutGrant, event,
                "\(event.kind) of offer \(Quote.text(campaign.id))/\(Quote.text(variant.id)) "
                    + "names no customer, and grants are issued to customers.")
            return
        }
        if !grantIssued(customerID, campaign.id, variant.id) {
            report(
                .offerWithoutGrant, event,
                "\(event.kind) of offer \(Quote.text(campaign.id))/\(Quote.text(variant.id)), "
                    + "but no grant for it was issued to customer \(Quote.text(customerID)).")
        }
    }

    // MARK: - Helpers

    private mutating func report(_ rule: ViolationRule, _ event: StoredEvent, _ message: String) {
        found.append(Violation(rule: rule, events: [event.sequence], eventIDs: [event.eventID], message: message))
    }

    /// Whether the configuration's `previews` pin `token` to this campaign and variant (contract §4).
    private func isPinned(_ token: String, _ campaignID: String, _ variantID: String) -> Bool {
        let previews = workspace.config["previews"]?.arrayValue ?? []
        return previews.contains {
            $0["token"]?.stringValue == token && $0["campaignID"]?.stringValue == campaignID
                && $0["variantID"]?.stringValue == variantID
        }
    }

    static func article(_ word: String) -> String {
        word.first.map { "aeiou".contains($0) } == true ? "An" : "A"
    }
}

// MARK: - The stored event, as the rules read it

private struct EventRef {
    var sequence: Int64
    var eventID: String
}

/// A visit of one install to one placement, for one campaign (rule 3).
private struct VisitKey: Hashable {
    var installID: String
    var visitID: String
    var placement: String
    var campaignID: String
}

/// What makes two once-only events the same: visit, screen, key and type (rule 1).
private struct VisitEventKey: Hashable {
    var visit: VisitKey
    var screen: String
    var key: String?
    var type: String
}

/// The fields the rules read from a stored event; anything missing is nil (the store only holds events
/// that passed validation, so the rules need not repeat it).
private struct StoredEvent {
    enum Preview {
        case token(String)
        case flag
    }

    struct Claim {
        var campaignID: String
        var variantID: String
        var placement: String?
    }

    var sequence: Int64
    var eventID: String
    var type: String
    var installID: String
    var customerID: String?
    var correctedTimestamp: Int64?
    var configRevision: Int64?
    var demo: Bool?
    var placement: String?
    /// `type`, with `id` or `name` when present: `product sku-1`.
    var screen: String
    var key: String?
    var visitID: String?
    var campaignID: String?
    var variantID: String?
    var arm: String?
    var preview: Preview?
    var treatments: [Claim]

    init(_ value: JSONValue) {
        sequence = value["sequence"]?.int64Value ?? 0
        eventID = value["eventID"]?.stringValue ?? ""
        type = value["type"]?.stringValue ?? ""
        installID = value["installID"]?.stringValue ?? ""
        customerID = value["customerID"]?.stringValue
        correctedTimestamp = value["correctedTimestamp"]?.int64Value ?? value["timestamp"]?.int64Value
        configRevision = value["configRevision"]?.int64Value
        demo = value["demo"]?.boolValue
        placement = value["placement"]?.stringValue
        let place = value["screen"]
        screen = [place?["type"], place?["id"], place?["name"]].compactMap { $0?.stringValue }.joined(separator: " ")
        key = value["key"]?.stringValue
        visitID = value["visitID"]?.stringValue
        campaignID = value["campaignID"]?.stringValue
        variantID = value["variantID"]?.stringValue
        arm = value["arm"]?.stringValue
        switch value["preview"] {
        case .string(let token) where !token.isEmpty: preview = .token(token)
        case .bool(true): preview = .flag
        default: preview = nil
        }
        treatments = (value["treatments"]?.arrayValue ?? []).compactMap { item in
            guard let campaignID = item["campaignID"]?.stringValue, let variantID = item["variantID"]?.stringValue
            else { return nil }
            return Claim(campaignID: campaignID, variantID: variantID, placement: item["placement"]?.stringValue)
        }
    }

    /// `An exposure (sequence 12)`: how a message starts.
    var kind: String { "\(ViolationsChecker.article(type)) \(type) (sequence \(sequence))" }
}
