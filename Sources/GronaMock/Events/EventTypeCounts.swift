/// Events counted by type, in fixed slots: one per `EventType`, in declaration order, and a last one for an
/// event without a valid type. The metrics count with slots on the writer's hot path and name them only when
/// scraped (`grona_events_total{type}`).
package struct EventTypeCounts: Sendable, Equatable {
    /// The slot of an event without a valid type.
    package static let invalidSlot = EventType.allCases.count
    package static let slotCount = invalidSlot + 1

    package private(set) var counts = [Int](repeating: 0, count: slotCount)

    package init() {}

    /// The slot of a type as sent: its `EventType`'s, or `invalidSlot`.
    package static func slot(of type: String?) -> Int {
        guard let type else { return invalidSlot }
        return EventType.allCases.firstIndex { $0.rawValue == type } ?? invalidSlot
    }

    /// The `type` label of a slot.
    package static func label(ofSlot slot: Int) -> String {
        slot < EventType.allCases.count ? EventType.allCases[slot].rawValue : "invalid"
    }

    package mutating func add(slot: Int, _ amount: Int = 1) {
        guard counts.indices.contains(slot) else { return }
        counts[slot] += amount
    }

    package var total: Int { counts.reduce(0, +) }
}
