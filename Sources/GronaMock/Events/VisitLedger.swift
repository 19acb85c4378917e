/// The per-visit state of the two rules that need the whole stream before they can decide:
/// `repeated_in_visit` (once-only events grouped by visit, screen, key and type) and `action_without_served`
/// (actions and dismissals, and the visits that have a `served`, whatever order the events arrived in).
/// `collect` takes each event; `appendViolations` decides at the end.
struct VisitLedger {
    /// Whether the SDK logs events of `type` at most once per visit.
    static func isOnceOnly(_ type: EventType) -> Bool {
        switch type {
        case .eligible, .anchorVisible, .exposure, .served: true
        case .action, .dismiss, .purchase, .unknown: false
        }
    }

    /// `repeated_in_visit`: each visit's once-only events, by what makes them the same, in first-seen order
    /// (`groups`), found by their key (`onceOnly`, the group's position, once there are many; `position(of:)`).
    private var onceOnly: [VisitEventKey: Int] = [:]
    private var groups: [(key: VisitEventKey, refs: [EventRef])] = []
    /// `action_without_served`: the actions and dismissals, looked up at the end among the visits of the
    /// `served` groups (collected then, not per event: with every event a `served`, inserting each into a set
    /// hashed every one of them a second time).
    private var actions: [(VisitKey, EventRef, EventType)] = []

    mutating func collect(_ event: CheckedEvent, campaignID: String) {
        guard let visitID = event.visitID, let placement = event.placement else { return }
        let visit = VisitKey(installID: event.installID, visitID: visitID, placement: placement, campaignID: campaignID)
        let ref = EventRef(sequence: event.sequence, eventID: event.eventID)
        if Self.isOnceOnly(event.type) {
            let key = VisitEventKey(visit: visit, screen: event.screen, key: event.key, type: event.type)
            if let position = position(of: key) {
                groups[position].refs.append(ref)
            } else {
                if !onceOnly.isEmpty { onceOnly[key] = groups.count }
                groups.append((key, [ref]))
            }
        } else if event.isOne(of: .action, .dismiss) {
            actions.append((visit, ref, event.type))
        }
    }

    /// The group of `key`, if it has one. A visit has a few groups (one per campaign and screen it showed), and
    /// comparing a key with each, whose ids the scan shares between a visit's events, costs less than hashing it:
    /// with every event a `served`, hashing was a twentieth of the check. Past `groupsSearchedInOrder` groups (a
    /// visit with every event on a screen of its own) they are hashed, so the search stays linear.
    private mutating func position(of key: VisitEventKey) -> Int? {
        guard groups.count >= Self.groupsSearchedInOrder else { return groups.firstIndex { $0.key == key } }
        if onceOnly.isEmpty {
            for (position, group) in groups.enumerated() { onceOnly[group.key] = position }
        }
        return onceOnly[key]
    }

    static let groupsSearchedInOrder = 8

    /// Forgets every event, keeping the tables' capacity: the scan in visit order reuses one ledger per visit.
    mutating func removeAll() {
        onceOnly.removeAll(keepingCapacity: true)
        groups.removeAll(keepingCapacity: true)
        actions.removeAll(keepingCapacity: true)
    }

    /// Appends to `found` the groups of repeated once-only events, then the actions and dismissals without a
    /// `served`; with an empty message unless `describing` (a summary counts them only).
    func appendViolations(describing: Bool, to found: inout [Violation]) {
        for (key, refs) in groups where refs.count > 1 {
            // Kept as its parts, written straight into the page (`ViolationSentence`): in a workspace where every
            // visit repeats, making this sentence a `String` was a tenth of the checker's work.
            let sentence =
                describing
                ? ViolationSentence.repeatedInVisit(
                    type: key.type, campaignID: key.visit.campaignID, visitID: key.visit.visitID,
                    placement: key.visit.placement, screen: key.screen, key: key.key) : .text("")
            found.append(
                Violation(
                    rule: .repeatedInVisit, events: refs.map(\.sequence), eventIDs: refs.map(\.eventID),
                    sentence: sentence))
        }
        let servedVisits = actions.isEmpty ? [] : Set(groups.lazy.filter { $0.key.type == .served }.map(\.key.visit))
        for (visit, ref, type) in actions where !servedVisits.contains(visit) {
            var message: String {
                "\(CheckedEvent.article(type.rawValue)) \(type) (sequence \(ref.sequence)) for campaign "
                    + "\(Quote.text(visit.campaignID)) in visit \(Quote.text(visit.visitID)) on "
                    + "\(visit.placement), which has no served event."
            }
            found.append(
                Violation(
                    rule: .actionWithoutServed, events: [ref.sequence], eventIDs: [ref.eventID],
                    message: describing ? message : ""))
        }
    }
}

/// One event, as a violation names it.
private struct EventRef {
    var sequence: Int64
    var eventID: String
}

/// A visit of one install to one placement, for one campaign.
///
/// Hashed by visit and campaign only (equality still compares every field): the scan in visit order hands
/// the ledger one install's visit at a time, so hashing the install id too was work on every event that
/// never told two keys apart.
private struct VisitKey: Hashable {
    var installID: String
    var visitID: String
    var placement: Placement
    var campaignID: String

    func hash(into hasher: inout Hasher) {
        hasher.combine(visitID)
        hasher.combine(campaignID)
    }
}

/// What makes two once-only events the same: visit, screen, key and type.
private struct VisitEventKey: Hashable {
    var visit: VisitKey
    var screen: String
    var key: String?
    var type: EventType

    func hash(into hasher: inout Hasher) {
        visit.hash(into: &hasher)
        hasher.combine(screen)
        hasher.combine(type)
    }
}
