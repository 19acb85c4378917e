/// The per-visit state of the two rules that need the whole visit before they can decide:
/// `repeated_in_visit` (once-only events grouped by visit, screen, key and type) and `action_without_served`
/// (actions and dismissals, and the visits that have a `served`, whatever order the events arrived in).
/// `collect` takes each event; `appendViolations` decides at the visit's end.
///
/// What it holds is bounded by the visit's groups, not by its events: a group lists its first `listedEvents`
/// events and counts the rest, and an action is dropped as soon as its visit has a `served`. One visit where
/// every event is the same `served` (a broken client with one install and visit id for everything) is one
/// group of 1,000 events however long it runs; before, it held every event, and its server grew past 150 MB
/// at 300,000 events (issue 32).
struct VisitLedger {
    /// The most events a `repeated_in_visit` violation lists; `Violation.eventCount` says how many it has.
    static let listedEvents = 1_000

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
    private var groups: [Group] = []
    /// `action_without_served`: the visits with a `served`, made from the groups when the visit's first action
    /// comes and kept up as `served` groups are made (once per group, not per event; a visit without actions,
    /// the most common by far, never hashes one), and the actions and dismissals whose visit had none when they
    /// came, decided at the end (a `served` may come after them).
    private var servedVisits: Set<VisitKey> = []
    private var hasActions = false
    private var actions: [(VisitKey, EventRef, EventType)] = []
    /// The events kept to name at the visit's end: what the ledger holds grows with this, and the tests bound it.
    private(set) var keptEvents = 0

    /// Takes one event; true when the ledger keeps it to name in a violation decided at the visit's end (its
    /// caller keeps what its filters need to know of it until then), false when it never will.
    mutating func collect(_ event: CheckedEvent, campaignID: String) -> Bool {
        guard let visitID = event.visitID, let placement = event.placement else { return false }
        let visit = VisitKey(installID: event.installID, visitID: visitID, placement: placement, campaignID: campaignID)
        if Self.isOnceOnly(event.type) {
            let key = VisitEventKey(visit: visit, screen: event.screen, key: event.key, type: event.type)
            if let position = position(of: key) {
                groups[position].count += 1
                guard groups[position].refs.count < Self.listedEvents else { return false }
                // Room for a few more at the first repeat: a broken SDK repeats its once-only events some five
                // times a visit, and growing the list one event at a time was three more allocations a visit. A
                // group that never repeats (a healthy SDK's) keeps its list of one.
                if groups[position].refs.count == 1 { groups[position].refs.reserveCapacity(Self.firstRefs) }
                groups[position].refs.append(EventRef(sequence: event.sequence, eventID: event.eventID))
                keptEvents += 1
                return true
            }
            if hasActions && event.type == .served { servedVisits.insert(visit) }
            if !onceOnly.isEmpty { onceOnly[key] = groups.count }
            groups.append(Group(key: key, refs: [EventRef(sequence: event.sequence, eventID: event.eventID)]))
            keptEvents += 1
            return true
        }
        guard event.isOne(of: .action, .dismiss) else { return false }
        if !hasActions {
            hasActions = true
            for group in groups where group.key.type == .served { servedVisits.insert(group.key.visit) }
        }
        guard !servedVisits.contains(visit) else { return false }
        actions.append((visit, EventRef(sequence: event.sequence, eventID: event.eventID), event.type))
        keptEvents += 1
        return true
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

    /// The events a group has room for at its first repeat.
    static let firstRefs = 8

    /// Forgets every event, keeping the tables' capacity: the scan in visit order reuses one ledger per visit.
    mutating func removeAll() {
        onceOnly.removeAll(keepingCapacity: true)
        groups.removeAll(keepingCapacity: true)
        if hasActions { servedVisits.removeAll(keepingCapacity: true) }
        hasActions = false
        actions.removeAll(keepingCapacity: true)
        keptEvents = 0
    }

    /// Appends to `found` the groups of repeated once-only events, then the actions and dismissals without a
    /// `served`; with an empty message unless `describing` (a summary counts them only).
    func appendViolations(describing: Bool, to found: inout [Violation]) {
        for group in groups where group.count > 1 {
            let key = group.key
            // Kept as its parts, written straight into the page (`ViolationSentence`): in a workspace where every
            // visit repeats, making this sentence a `String` was a tenth of the checker's work.
            let sentence =
                describing
                ? ViolationSentence.repeatedInVisit(
                    type: key.type, campaignID: key.visit.campaignID, visitID: key.visit.visitID,
                    placement: key.visit.placement, screen: key.screen, key: key.key)
                : .text("")
            found.append(
                Violation(
                    rule: .repeatedInVisit, events: group.refs.map(\.sequence), eventIDs: group.refs.map(\.eventID),
                    eventCount: group.count, sentence: sentence))
        }
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

/// Once-only events that are the same (`VisitEventKey`): the first `VisitLedger.listedEvents` of them, and how
/// many there are.
private struct Group {
    var key: VisitEventKey
    var refs: [EventRef]
    var count = 1
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
