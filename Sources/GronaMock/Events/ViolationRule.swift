import GronaMockJSON

/// The SDK's side of the contract, checked on a stored event stream (contract §8, issue 6): what a correct
/// SDK never sends. Declared once: the checker reports these cases, the JSON output names them by their wire
/// name, and a test walks them to check that docs/violations.md and docs/openapi.yaml describe each. Adding
/// one means adding its case here, its check in `ViolationsChecker+Rules.swift` (or `VisitLedger.swift` for a
/// rule that needs the whole stream), its section in docs/violations.md and its name in the OpenAPI
/// document's `rule` enum.
package enum ViolationRule: String, Sendable, CaseIterable, Comparable {
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

    /// In the order declared: violations of one event are listed in that order.
    package static func < (lhs: ViolationRule, rhs: ViolationRule) -> Bool {
        (allCases.firstIndex(of: lhs) ?? 0) < (allCases.firstIndex(of: rhs) ?? 0)
    }
}

/// One breach: the rule, the stored events involved (by `sequence`, and their `eventID`s) and a sentence.
package struct Violation: Sendable, Equatable, CustomStringConvertible {
    package var rule: ViolationRule
    package var events: [Int64]
    package var eventIDs: [String]
    /// How many events the violation involves: `events.count`, unless the list was cut short
    /// (`VisitLedger.listedEvents`: a `repeated_in_visit` group of one visit where every event repeats).
    package var eventCount: Int
    /// The sentence as its parts (`ViolationSentence`), made into text when `message` is read.
    var sentence: ViolationSentence

    package init(rule: ViolationRule, events: [Int64], eventIDs: [String], message: String) {
        self.init(rule: rule, events: events, eventIDs: eventIDs, sentence: .text(message))
    }

    init(
        rule: ViolationRule, events: [Int64], eventIDs: [String], eventCount: Int? = nil,
        sentence: ViolationSentence
    ) {
        self.rule = rule
        self.events = events
        self.eventIDs = eventIDs
        self.eventCount = max(eventCount ?? events.count, events.count)
        self.sentence = sentence
    }

    /// Whether `events` lists only the first of the violation's events (`eventCount` says how many it has).
    package var isCut: Bool { eventCount > events.count }

    package var message: String {
        get { sentence.text(events: events, eventCount: eventCount) }
        set { sentence = .text(newValue) }
    }

    /// Equal when they read the same, however their sentences are kept.
    package static func == (lhs: Violation, rhs: Violation) -> Bool {
        lhs.rule == rhs.rule && lhs.events == rhs.events && lhs.eventIDs == rhs.eventIDs
            && lhs.eventCount == rhs.eventCount && lhs.message == rhs.message
    }

    package var description: String { "\(rule.rawValue) \(events): \(message)" }

    /// As `GET /_mock/events/violations` lists it: `{"rule", "events", "eventIDs", "message"}`, with
    /// `eventCount` after `eventIDs` when the lists were cut short.
    package var json: JSONValue {
        var object: JSONObject = [
            "rule": .string(rule.rawValue), "events": .array(events.map { .number(JSONNumber($0)) }),
            "eventIDs": .array(eventIDs.map { .string($0) }),
        ]
        if isCut { object.set("eventCount", .number(JSONNumber(Int64(eventCount)))) }
        object.set("message", .string(message))
        return .object(object)
    }
}
