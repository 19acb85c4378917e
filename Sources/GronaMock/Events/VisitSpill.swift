/// A visit's kept events once there are more than `VisitLedger` holds (`memoryBound`), sorted on disk
/// (`ExternalSort`), and its `repeated_in_visit` and `action_without_served` decided from them in bounded memory.
///
/// Why: a visit is judged at its end, and the ledger holds what it needs in memory, which grows with the visit
/// for two shapes of a broken SDK with one visit id for everything: every event an action without a `served`
/// (each is kept), and every once-only event on a screen of its own (each is a group). At a million events
/// such a visit passed 150 MB (issue 32).
///
/// The events are sorted by visit, then once-only events by what makes them the same and then actions, each
/// by sequence: read in that order, a group's events come together (its first `VisitLedger.listedEvents` are
/// listed, the rest counted) and whether the visit had a `served` is known before its actions come. The
/// violations found are sorted again, by first event (the order the ledger answers in), and handed out one at
/// a time with the facts of their events.
struct VisitSpill {
    private var kept: ExternalSort
    private var key = SortableBytes()
    private var payload = SortableBytes()

    init(memoryLimit: Int, makeFile: @escaping @Sendable () -> (any SortFile)? = ExternalSort.scratchFile) {
        kept = ExternalSort(memoryLimit: memoryLimit, makeFile: makeFile)
    }

    /// A once-only event, counting `weight` events of its group (more than one for the last event the ledger
    /// listed of a group cut short, when it moves a group here).
    mutating func appendOnceOnly(_ group: VisitEventKey, _ ref: EventRef, weight: Int, facts: EventFacts?) {
        key.removeAll()
        append(group.visit, .onceOnly)
        key.append(group.type.rawValue)
        key.append(group.screen)
        key.append(group.key)
        key.append(ref.sequence)
        payload.removeAll()
        payload.append(ref.eventID)
        payload.append(Int64(weight))
        Self.append(facts, to: &payload)
        kept.append(key: key.bytes, payload: payload.bytes)
    }

    /// An action or dismissal, whose visit had no `served` when it came.
    mutating func appendAction(_ visit: VisitKey, _ ref: EventRef, type: EventType, facts: EventFacts?) {
        key.removeAll()
        append(visit, .action)
        key.append(ref.sequence)
        payload.removeAll()
        payload.append(ref.eventID)
        payload.append(type.rawValue)
        Self.append(facts, to: &payload)
        kept.append(key: key.bytes, payload: payload.bytes)
    }

    /// Hands the visit's violations to `body`, ordered by first event, each with the facts of its events,
    /// until it answers false (false then); forgets the events. Throws when the scratch file lost some.
    mutating func decide(
        describing: Bool, _ body: (Violation, (Int64) -> EventFacts?) -> Bool
    ) throws(StorageError) -> Bool {
        var found = Found(violations: ExternalSort(memoryLimit: kept.memoryLimit, makeFile: kept.makeFile))
        var damaged = false
        let read = kept.drain { key, payload in
            guard let record = KeptRecord(key: key, payload: payload) else {
                damaged = true
                return false
            }
            found.take(record)
            return true
        }
        found.endGroup()
        guard read, !damaged else { throw Self.lost }
        var stopped = false
        let answered = found.violations.drain { key, payload in
            guard let (violation, facts) = Found.violation(payload, describing: describing) else {
                damaged = true
                return false
            }
            guard body(violation, { facts[$0] }) else {
                stopped = true
                return false
            }
            return true
        }
        guard answered, !damaged else { throw Self.lost }
        return !stopped
    }

    private static let lost = StorageError(
        .unavailable,
        "a visit too large to judge in memory could not be sorted in a temporary file (is its disk full?)")

    private mutating func append(_ visit: VisitKey, _ kind: KeptRecord.Kind) {
        key.append(visit.installID)
        key.append(visit.visitID)
        key.append(visit.placement.rawValue)
        key.append(visit.campaignID)
        key.append(kind.rawValue)
    }

    fileprivate static func append(_ facts: EventFacts?, to bytes: inout SortableBytes) {
        guard let facts else { return bytes.append(0 as UInt8) }
        bytes.append(1 as UInt8)
        bytes.append(facts.timestamp)
        bytes.append(Int64(facts.campaigns.count))
        for campaign in facts.campaigns { bytes.append(campaign) }
    }

    fileprivate static func facts(_ reader: inout SortableBytesReader) -> EventFacts?? {
        switch reader.byte() {
        case 0: return .some(nil)
        case 1: break
        default: return nil
        }
        guard let timestamp = reader.int64(), let count = reader.int64(), count >= 0 else { return nil }
        var campaigns: [String] = []
        for _ in 0..<count {
            guard let campaign = reader.string() else { return nil }
            campaigns.append(campaign)
        }
        return .some(EventFacts(timestamp: timestamp, campaigns: campaigns))
    }
}

/// One kept event as read back from the sort.
private enum KeptRecord {
    /// In the order a visit's records sort.
    enum Kind: UInt8 {
        case onceOnly = 0
        case action = 1
    }

    case onceOnly(VisitEventKey, EventRef, weight: Int, facts: EventFacts?)
    case action(VisitKey, EventRef, EventType, facts: EventFacts?)

    init?(key: ArraySlice<UInt8>, payload: ArraySlice<UInt8>) {
        var key = SortableBytesReader(key)
        var payload = SortableBytesReader(payload)
        guard let installID = key.string(), let visitID = key.string(), let placement = key.string(),
            let campaignID = key.string(), let kind = key.byte().flatMap(Kind.init(rawValue:))
        else { return nil }
        let visit = VisitKey(
            installID: installID, visitID: visitID, placement: Placement(rawValue: placement), campaignID: campaignID)
        switch kind {
        case .onceOnly:
            guard let type = key.string(), let screen = key.string(), let eventKey = key.optionalString(),
                let sequence = key.int64(), let eventID = payload.string(), let weight = payload.int64(),
                weight >= 1, let facts = VisitSpill.facts(&payload)
            else { return nil }
            let group = VisitEventKey(visit: visit, screen: screen, key: eventKey, type: EventType(rawValue: type))
            self = .onceOnly(
                group, EventRef(sequence: sequence, eventID: eventID), weight: Int(clamping: weight), facts: facts)
        case .action:
            guard let sequence = key.int64(), let eventID = payload.string(), let type = payload.string(),
                let facts = VisitSpill.facts(&payload)
            else { return nil }
            self = .action(
                visit, EventRef(sequence: sequence, eventID: eventID), EventType(rawValue: type), facts: facts)
        }
    }
}

/// The violations found reading the sorted events: the group at hand, whether the visit at hand had a
/// `served`, and the violations, sorted again by first event.
private struct Found {
    var violations: ExternalSort
    private var visit: VisitKey?
    private var visitHasServed = false
    private var group: VisitEventKey?
    private var events: [Int64] = []
    private var eventIDs: [String] = []
    private var facts: [EventFacts?] = []
    private var count = 0
    private var key = SortableBytes()
    private var payload = SortableBytes()

    init(violations: ExternalSort) {
        self.violations = violations
    }

    private enum Kind: UInt8 {
        case repeated = 0
        case action = 1
    }

    /// The rules' places in `ViolationRule`'s order, which the answer sorts a first event's violations by.
    private static let repeatedRule = UInt8(ViolationRule.allCases.firstIndex(of: .repeatedInVisit) ?? 0)
    private static let actionRule = UInt8(ViolationRule.allCases.firstIndex(of: .actionWithoutServed) ?? 0)

    mutating func take(_ record: KeptRecord) {
        switch record {
        case .onceOnly(let key, let ref, let weight, let eventFacts):
            if key.visit != visit {
                endGroup()
                visit = key.visit
                visitHasServed = false
            }
            if key != group {
                endGroup()
                group = key
            }
            if key.type == .served { visitHasServed = true }
            let (sum, overflow) = count.addingReportingOverflow(weight)
            count = overflow ? .max : sum
            guard events.count < VisitLedger.listedEvents else { return }
            events.append(ref.sequence)
            eventIDs.append(ref.eventID)
            facts.append(eventFacts)
        case .action(let visit, let ref, let type, let eventFacts):
            endGroup()
            if visit != self.visit {
                self.visit = visit
                visitHasServed = false
            }
            guard !visitHasServed else { return }
            key.removeAll()
            key.append(ref.sequence)
            key.append(Self.actionRule)
            payload.removeAll()
            payload.append(Kind.action.rawValue)
            payload.append(type.rawValue)
            append(visit)
            payload.append(ref.sequence)
            payload.append(ref.eventID)
            VisitSpill.append(eventFacts, to: &payload)
            violations.append(key: key.bytes, payload: payload.bytes)
        }
    }

    /// Decides the group at hand: a violation if it has more than one event.
    mutating func endGroup() {
        defer {
            group = nil
            events.removeAll(keepingCapacity: true)
            eventIDs.removeAll(keepingCapacity: true)
            facts.removeAll(keepingCapacity: true)
            count = 0
        }
        guard let group, count > 1, let first = events.first else { return }
        key.removeAll()
        key.append(first)
        key.append(Self.repeatedRule)
        payload.removeAll()
        payload.append(Kind.repeated.rawValue)
        payload.append(group.type.rawValue)
        append(group.visit)
        payload.append(group.screen)
        payload.append(group.key)
        payload.append(Int64(count))
        payload.append(Int64(events.count))
        for index in events.indices {
            payload.append(events[index])
            payload.append(eventIDs[index])
            VisitSpill.append(facts[index], to: &payload)
        }
        violations.append(key: key.bytes, payload: payload.bytes)
    }

    private mutating func append(_ visit: VisitKey) {
        payload.append(visit.campaignID)
        payload.append(visit.visitID)
        payload.append(visit.placement.rawValue)
    }

    /// The violation a payload describes, and the facts of its events; nil for bytes it cannot read.
    static func violation(_ bytes: ArraySlice<UInt8>, describing: Bool) -> (Violation, [Int64: EventFacts])? {
        var reader = SortableBytesReader(bytes)
        guard let kind = reader.byte().flatMap(Kind.init(rawValue:)), let type = reader.string(),
            let campaignID = reader.string(), let visitID = reader.string(), let placement = reader.string()
        else { return nil }
        let visit = VisitKey(
            installID: "", visitID: visitID, placement: Placement(rawValue: placement), campaignID: campaignID)
        var facts: [Int64: EventFacts] = [:]
        switch kind {
        case .repeated:
            guard let screen = reader.string(), let key = reader.optionalString(), let count = reader.int64(),
                let listed = reader.int64(), (0...Int64(VisitLedger.listedEvents)).contains(listed)
            else { return nil }
            var events: [Int64] = []
            var eventIDs: [String] = []
            for _ in 0..<listed {
                guard let sequence = reader.int64(), let eventID = reader.string(),
                    let eventFacts = VisitSpill.facts(&reader)
                else { return nil }
                events.append(sequence)
                eventIDs.append(eventID)
                facts[sequence] = eventFacts
            }
            let group = VisitEventKey(visit: visit, screen: screen, key: key, type: EventType(rawValue: type))
            let violation = VisitLedger.repeated(
                group, events: events, eventIDs: eventIDs, count: Int(clamping: count), describing: describing)
            return (violation, facts)
        case .action:
            guard let sequence = reader.int64(), let eventID = reader.string(),
                let eventFacts = VisitSpill.facts(&reader)
            else { return nil }
            facts[sequence] = eventFacts
            let violation = VisitLedger.actionWithoutServed(
                visit, EventRef(sequence: sequence, eventID: eventID), type: EventType(rawValue: type),
                describing: describing)
            return (violation, facts)
        }
    }
}
