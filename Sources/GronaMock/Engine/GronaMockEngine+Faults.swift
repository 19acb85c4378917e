import GronaMockJSON
import GronaMockPlatform

/// A fault rule id that names no rule.
package struct UnknownFault: Error, Sendable, Equatable {
    package let id: String
}

extension GronaMockEngine {
    // MARK: - Faults

    /// Adds a rule; returns it as listed, with its id.
    package func addFault(_ rule: FaultRule) throws -> JSONObject {
        called()
        return try faults.add(rule)
    }

    /// Every rule, oldest first, with how often each fired and how many fires it has left.
    package func faultRules() throws -> [JSONObject] {
        called()
        return try faults.listing()
    }

    package func faultRule(id: String) throws -> JSONObject {
        called()
        guard let listing = try faults.listing(id: id) else { throw UnknownFault(id: id) }
        return listing
    }

    package func removeFault(id: String) throws {
        called()
        guard try faults.remove(id: id) else { throw UnknownFault(id: id) }
    }

    /// Removes every rule; says how many there were.
    package func clearFaults() throws -> Int {
        called()
        return try faults.clear()
    }

    // MARK: - The clock

    package func clockState() -> ClockState {
        called()
        return clockSnapshot()
    }

    /// Moves, freezes or resets the mock's clock (checked whole before anything changes), and tells the other
    /// instances on the same database.
    package func changeClock(_ change: ClockChange) throws -> ClockState {
        called()
        try clock.apply(change)
        clock.published(version: try shared.publish(clock: clock.setting))
        let state = clockSnapshot()
        events.publish(.clockChanged(state))
        return state
    }

    func clockSnapshot() -> ClockState {
        let (now, offset, frozen) = clock.snapshot()
        return ClockState(now: now, offsetMilliseconds: offset, frozen: frozen)
    }
}
