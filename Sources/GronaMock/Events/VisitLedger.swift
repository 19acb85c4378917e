/// The per-visit state of the two rules that need the whole visit before they can decide:
/// `repeated_in_visit` (once-only events grouped by visit, screen, key and type) and `action_without_served`
/// (actions and dismissals, and the visits that have a `served`, whatever order the events arrived in).
/// `collect` takes each event; `decide` judges at the visit's end.
///
/// What it holds in memory is bounded by the visit's groups, not by its events: a group lists its first
/// `listedEvents` events and counts the rest, and an action is dropped as soon as its visit has a `served`. One
/// visit where every event is the same `served` (a broken client with one install and visit id for everything)
/// is one group of 1,000 events however long it runs. Two shapes would still grow with the visit: every event an
/// action without a `served`, and every once-only event on a screen of its own (each is a group). Past
/// `memoryBound` kept events, the visit moves to a `VisitSpill`, sorted on disk (issue 32).
struct VisitLedger {
    /// The most events a `repeated_in_visit` violation lists; `Violation.eventCount` says how many it has.
    static let listedEvents = 1_000

    /// The kept events past which a visit moves to a `VisitSpill` when the ledger has a `memoryBound`: each is
    /// some 100 to 600 bytes in memory (its reference, its group and the group's key in the table, the facts the
    /// filters need). A healthy SDK's visit keeps a few; at 50,000 a visit of screens of their own added some
    /// 60 MB to the server's peak.
    static let standardMemoryBound = 10_000

    /// Whether the SDK logs events of `type` at most once per visit.
    static func isOnceOnly(_ type: EventType) -> Bool {
        switch type {
        case .eligible, .anchorVisible, .exposure, .served: true
        case .action, .dismiss, .purchase, .unknown: false
        }
    }

    /// The kept events past which the visit at hand moves to a `VisitSpill`; nil never (the one-call check,
    /// which holds every event anyway). The scan in visit order sets it.
    var memoryBound: Int?
    /// The memory limit of a `VisitSpill`'s sorts (smaller in tests).
    var spillMemoryLimit = ExternalSort.standardMemoryLimit

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
    /// What the filters need to know of the events kept (`collect`'s `facts`), for the violations that name
    /// them.
    private var facts: [Int64: EventFacts] = [:]
    /// The visit's kept events, once more than `memoryBound`.
    private var spill: VisitSpill?
    /// The visit's violations, decided in memory, the array's storage kept from one visit to the next.
    private var decided: [Violation] = []
    /// The events kept in memory to name at the visit's end: what the ledger holds grows with this, and the
    /// tests bound it.
    private(set) var keptEvents = 0
    /// Whether the visit at hand moved to a `VisitSpill`.
    var isSpilled: Bool { spill != nil }

    /// Takes one event, with what the filters need to know of it (nil without filters), and keeps it if a
    /// violation decided at the visit's end may name it.
    mutating func collect(_ event: CheckedEvent, campaignID: String, facts eventFacts: EventFacts? = nil) {
        guard let visitID = event.visitID, let placement = event.placement else { return }
        let visit = VisitKey(installID: event.installID, visitID: visitID, placement: placement, campaignID: campaignID)
        // Made only for an event kept: most repeats past the listed ones and most actions are not.
        var ref: EventRef { EventRef(sequence: event.sequence, eventID: event.eventID) }
        if Self.isOnceOnly(event.type) {
            let key = VisitEventKey(visit: visit, screen: event.screen, key: event.key, type: event.type)
            guard spill == nil else {
                spill?.appendOnceOnly(key, ref, weight: 1, facts: eventFacts)
                return
            }
            if let position = position(of: key) {
                groups[position].count += 1
                guard groups[position].refs.count < Self.listedEvents else { return }
                // Room for a few more at the first repeat: a broken SDK repeats its once-only events some five
                // times a visit, and growing the list one event at a time was three more allocations a visit. A
                // group that never repeats (a healthy SDK's) keeps its list of one.
                if groups[position].refs.count == 1 { groups[position].refs.reserveCapacity(Self.firstRefs) }
                groups[position].refs.append(ref)
                keep(event.sequence, eventFacts)
                return
            }
            if hasActions && event.type == .served { servedVisits.insert(visit) }
            if !onceOnly.isEmpty { onceOnly[key] = groups.count }
            groups.append(Group(key: key, refs: [ref]))
            keep(event.sequence, eventFacts)
            return
        }
        guard event.isOne(of: .action, .dismiss) else { return }
        guard spill == nil else {
            spill?.appendAction(visit, ref, type: event.type, facts: eventFacts)
            return
        }
        if !hasActions {
            hasActions = true
            for group in groups where group.key.type == .served { servedVisits.insert(group.key.visit) }
        }
        guard !servedVisits.contains(visit) else { return }
        actions.append((visit, ref, event.type))
        keep(event.sequence, eventFacts)
    }

    /// Counts an event kept in memory, and moves the visit to a `VisitSpill` past `memoryBound`.
    private mutating func keep(_ sequence: Int64, _ eventFacts: EventFacts?) {
        if let eventFacts { facts[sequence] = eventFacts }
        keptEvents += 1
        if let memoryBound, keptEvents > memoryBound { moveToSpill() }
    }

    /// Moves what the visit holds to a `VisitSpill`: each group's listed events (the last counting the rest of
    /// a group cut short) and the actions still waiting for a `served`.
    private mutating func moveToSpill() {
        var spill = VisitSpill(memoryLimit: spillMemoryLimit)
        for group in groups {
            for (index, ref) in group.refs.enumerated() {
                let weight = index == group.refs.count - 1 ? 1 + group.count - group.refs.count : 1
                spill.appendOnceOnly(group.key, ref, weight: weight, facts: facts[ref.sequence])
            }
        }
        for (visit, ref, type) in actions where !servedVisits.contains(visit) {
            spill.appendAction(visit, ref, type: type, facts: facts[ref.sequence])
        }
        // What the visit held is not kept for the next: it was as large as the bound.
        forgetHeld(keepingCapacity: false)
        self.spill = spill
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
        forgetHeld()
        spill = nil
    }

    private mutating func forgetHeld(keepingCapacity: Bool = true) {
        onceOnly.removeAll(keepingCapacity: keepingCapacity)
        groups.removeAll(keepingCapacity: keepingCapacity)
        if hasActions { servedVisits.removeAll(keepingCapacity: keepingCapacity) }
        hasActions = false
        actions.removeAll(keepingCapacity: keepingCapacity)
        if !facts.isEmpty { facts.removeAll(keepingCapacity: keepingCapacity) }
        keptEvents = 0
    }

    /// Hands the violations of the events collected (`repeated_in_visit`, `action_without_served`) to `body`,
    /// ordered by first event, each with what the filters need to know of its events, until it answers false
    /// (false then); with an empty message unless `describing` (a summary counts them only). Throws when a
    /// visit moved to disk could not be read back whole.
    mutating func decide(
        describing: Bool, _ body: (Violation, (Int64) -> EventFacts?) -> Bool
    ) throws(StorageError) -> Bool {
        guard spill == nil else { return try spill?.decide(describing: describing, body) ?? true }
        decided.removeAll(keepingCapacity: true)
        appendViolations(describing: describing, to: &decided)
        ViolationsChecker.order(&decided)
        for violation in decided {
            guard body(violation, { facts[$0] }) else { return false }
        }
        return true
    }

    /// Appends to `found` the groups held of repeated once-only events, then the actions and dismissals without
    /// a `served`: what the one-call check, which never spills, decides at its end.
    func appendViolations(describing: Bool, to found: inout [Violation]) {
        for group in groups where group.count > 1 {
            found.append(
                Self.repeated(
                    group.key, events: group.refs.map(\.sequence), eventIDs: group.refs.map(\.eventID),
                    count: group.count, describing: describing))
        }
        for (visit, ref, type) in actions where !servedVisits.contains(visit) {
            found.append(Self.actionWithoutServed(visit, ref, type: type, describing: describing))
        }
    }

    /// A group of repeated once-only events, its first `events` of `count`.
    static func repeated(
        _ key: VisitEventKey, events: [Int64], eventIDs: [String], count: Int, describing: Bool
    ) -> Violation {
        // Kept as its parts, written straight into the page (`ViolationSentence`): in a workspace where every
        // visit repeats, making this sentence a `String` was a tenth of the checker's work.
        let sentence =
            describing
            ? ViolationSentence.repeatedInVisit(
                type: key.type, campaignID: key.visit.campaignID, visitID: key.visit.visitID,
                placement: key.visit.placement, screen: key.screen, key: key.key)
            : .text("")
        return Violation(
            rule: .repeatedInVisit, events: events, eventIDs: eventIDs, eventCount: count, sentence: sentence)
    }

    /// An action or dismissal in a visit without a `served` of its campaign on its placement; its sentence kept
    /// as its parts (a visit of a broken SDK can have one for every event).
    static func actionWithoutServed(_ visit: VisitKey, _ ref: EventRef, type: EventType, describing: Bool) -> Violation
    {
        let sentence =
            describing
            ? ViolationSentence.actionWithoutServed(
                type: type, campaignID: visit.campaignID, visitID: visit.visitID, placement: visit.placement)
            : .text("")
        return Violation(
            rule: .actionWithoutServed, events: [ref.sequence], eventIDs: [ref.eventID], sentence: sentence)
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
struct EventRef {
    var sequence: Int64
    var eventID: String
}

/// A visit of one install to one placement, for one campaign.
///
/// Hashed by visit and campaign only (equality still compares every field): the scan in visit order hands
/// the ledger one install's visit at a time, so hashing the install id too was work on every event that
/// never told two keys apart.
struct VisitKey: Hashable {
    var installID: String
    var visitID: String
    var placement: Placement
    var campaignID: String

    func hash(into hasher: inout Hasher) {
        hasher.combine(visitID)
        hasher.combine(campaignID)
    }

    /// Byte for byte (`ExactText`), as the stores and the sort on disk compare ids.
    static func == (lhs: VisitKey, rhs: VisitKey) -> Bool {
        ExactText.equal(lhs.visitID, rhs.visitID) && ExactText.equal(lhs.campaignID, rhs.campaignID)
            && ExactText.equal(lhs.placement.rawValue, rhs.placement.rawValue)
            && ExactText.equal(lhs.installID, rhs.installID)
    }
}

/// What makes two once-only events the same: visit, screen, key and type.
struct VisitEventKey: Hashable {
    var visit: VisitKey
    var screen: String
    var key: String?
    var type: EventType

    func hash(into hasher: inout Hasher) {
        visit.hash(into: &hasher)
        hasher.combine(screen)
        hasher.combine(type)
    }

    /// Byte for byte (`ExactText`), as the stores and the sort on disk compare ids.
    static func == (lhs: VisitEventKey, rhs: VisitEventKey) -> Bool {
        lhs.visit == rhs.visit && ExactText.equal(lhs.screen, rhs.screen) && ExactText.equal(lhs.key, rhs.key)
            && ExactText.equal(lhs.type.rawValue, rhs.type.rawValue)
    }
}
