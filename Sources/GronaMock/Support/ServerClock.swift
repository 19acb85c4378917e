import GronaMockPlatform

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The times the mock can show: 1970-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z, in Unix epoch
/// milliseconds. Every date the contract carries (JWT `iat`/`nbf`/`exp`, `issuedAt`, event times) fits, and
/// so does any sum of two of them, so arithmetic on clock readings cannot overflow.
package enum MockTime {
    package static let range: ClosedRange<Int64> = 0...253_402_300_799_999

    /// Unix seconds as milliseconds, moved into the range first (a stored `issuedAt` from any source).
    static func milliseconds(fromSeconds seconds: Int64) -> Int64 {
        min(max(seconds, 0), range.upperBound / 1000) * 1000
    }

    /// `milliseconds` moved into the range.
    static func clamped(_ milliseconds: Int64) -> Int64 {
        min(max(milliseconds, range.lowerBound), range.upperBound)
    }
}

/// A change to the clock, as `POST /_mock/clock` asks for it: applied in this order, all or nothing.
package struct ClockChange: Sendable, Equatable {
    package var reset = false
    package var offsetMilliseconds: Int64?
    package var advanceMilliseconds: Int64?
    /// true freezes (at `freezeAt`, or now), false lets a frozen clock run again.
    package var freeze: Bool?
    package var freezeAt: Int64?

    package init(
        reset: Bool = false, offsetMilliseconds: Int64? = nil, advanceMilliseconds: Int64? = nil, freeze: Bool? = nil,
        freezeAt: Int64? = nil
    ) {
        self.reset = reset
        self.offsetMilliseconds = offsetMilliseconds
        self.advanceMilliseconds = advanceMilliseconds
        self.freeze = freeze
        self.freezeAt = freezeAt
    }
}

/// A clock change refused because the clock would leave `MockTime.range`; nothing was changed.
package struct ClockOutOfRange: Error, Sendable, CustomStringConvertible {
    /// Where the change would have put the clock (saturated at the ends of Int64).
    package let wouldBe: Int64
    package var description: String {
        "the clock would read \(wouldBe) ms, outside 1970-01-01T00:00:00Z…9999-12-31T23:59:59.999Z "
            + "(0…\(MockTime.range.upperBound) ms)"
    }
}

/// The time the mock believes it is: the wall clock, shifted by an offset, or frozen.
///
/// Everything the contract dates (configuration `issuedAt`, grant windows and claims, schedules, event
/// `receivedAt`) reads this clock, so a test can move time without waiting. Logs and timeouts do not.
/// Readings always lie in `MockTime.range`: `apply` refuses a change that would leave it, and the plain
/// setters used in process clamp.
package final class ServerClock: Sendable {
    private struct State {
        var offsetMilliseconds: Int64 = 0
        var frozenAt: Int64?

        func now(wall: Int64) -> Int64 { frozenAt ?? wall.clampedAdding(offsetMilliseconds) }

        func applying(_ change: ClockChange, wall: Int64) -> State {
            var next = change.reset ? State() : self
            if let offset = change.offsetMilliseconds { next.offsetMilliseconds = offset }
            if let advance = change.advanceMilliseconds {
                next.offsetMilliseconds = next.offsetMilliseconds.clampedAdding(advance)
                if let frozen = next.frozenAt { next.frozenAt = frozen.clampedAdding(advance) }
            }
            switch change.freeze {
            case true?: next.frozenAt = change.freezeAt ?? next.now(wall: wall)
            case false?:
                // Runs on from where it stood, unless the same change names the offset to run at.
                if let frozen = next.frozenAt, change.offsetMilliseconds == nil {
                    next.offsetMilliseconds = frozen.clampedAdding(-wall)
                }
                next.frozenAt = nil
            case nil: break
            }
            return next
        }

        /// The same state moved so that it reads inside the range.
        func clamped(wall: Int64) -> State {
            var state = self
            if let frozen = frozenAt { state.frozenAt = MockTime.clamped(frozen) }
            let now = state.now(wall: wall)
            if now != MockTime.clamped(now) { state.offsetMilliseconds = MockTime.clamped(now).clampedAdding(-wall) }
            return state
        }
    }

    private let state = Mutex(State())
    /// The version of the shared clock row that this instance's setting is at (0 when alone): a setting
    /// read from the database is adopted only when its version is newer, so that the notification of this
    /// instance's own earlier change, read late by the listener, cannot undo a change made since.
    private let sharedVersion = Mutex<Int64>(0)

    package init() {}

    /// Unix epoch milliseconds, as the mock sees them; always in `MockTime.range`.
    package func nowMilliseconds() -> Int64 {
        let wall = Self.wallMilliseconds()
        return MockTime.clamped(state.withLock { $0.now(wall: wall) })
    }

    /// Unix epoch seconds, as the mock sees them.
    package func nowSeconds() -> Int64 { nowMilliseconds() / 1000 }

    package static func wallMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    /// Applies `change` whole, or refuses it (changing nothing) when the clock would leave `MockTime.range`.
    package func apply(_ change: ClockChange) throws(ClockOutOfRange) {
        let wall = Self.wallMilliseconds()
        try state.withLock { state throws(ClockOutOfRange) in
            let next = state.applying(change, wall: wall)
            let now = next.now(wall: wall)
            guard MockTime.range.contains(now) else { throw ClockOutOfRange(wouldBe: now) }
            state = next
        }
    }

    /// Applies `change`, moving the result into the range instead of refusing it.
    private func applyClamped(_ change: ClockChange) {
        let wall = Self.wallMilliseconds()
        state.withLock { $0 = $0.applying(change, wall: wall).clamped(wall: wall) }
    }

    /// Shifts the clock by `milliseconds` (a frozen clock stays frozen, at the shifted time).
    package func advance(byMilliseconds milliseconds: Int64) {
        applyClamped(ClockChange(advanceMilliseconds: milliseconds))
    }

    /// Stops the clock at `milliseconds` (or at now, when nil).
    package func freeze(atMilliseconds milliseconds: Int64? = nil) {
        applyClamped(ClockChange(freeze: true, freezeAt: milliseconds))
    }

    /// Lets a frozen clock run again from where it stood.
    package func unfreeze() { applyClamped(ClockChange(freeze: false)) }

    /// Sets the offset from the wall clock (a frozen clock stays frozen).
    package func setOffset(milliseconds: Int64) { applyClamped(ClockChange(offsetMilliseconds: milliseconds)) }

    /// Now, the offset, and whether the clock is frozen, read together.
    package func snapshot() -> (now: Int64, offsetMilliseconds: Int64, frozen: Bool) {
        let wall = Self.wallMilliseconds()
        let state = self.state.withLock { $0 }
        return (MockTime.clamped(state.now(wall: wall)), state.offsetMilliseconds, state.frozenAt != nil)
    }

    /// Back to the wall clock.
    package func reset() {
        state.withLock { $0 = State() }
    }

    /// The offset and the frozen time, as instances on one database share them.
    package var setting: ClockSetting {
        state.withLock { ClockSetting(offsetMilliseconds: $0.offsetMilliseconds, frozenAt: $0.frozenAt) }
    }

    /// Takes the setting another instance published as `version` of the shared row, moved into the range (a
    /// stored row is input too); a version this instance is already at or past is ignored.
    package func adopt(_ setting: ClockSetting, version: Int64) {
        let wall = Self.wallMilliseconds()
        let adopted = State(offsetMilliseconds: setting.offsetMilliseconds, frozenAt: setting.frozenAt)
        sharedVersion.withLock { current in
            guard version > current else { return }
            current = version
            state.withLock { $0 = adopted.clamped(wall: wall) }
        }
    }

    /// This instance published its setting as `version` of the shared row.
    package func published(version: Int64) {
        sharedVersion.withLock { $0 = max($0, version) }
    }
}

/// What the clock is set to: an offset from the wall clock, or a frozen time. Shared as is: the instances
/// on one database read the same wall clock (within what NTP keeps them apart), so the same setting shows
/// them the same time.
package struct ClockSetting: Sendable, Equatable {
    package var offsetMilliseconds: Int64
    /// Unix epoch milliseconds, when frozen.
    package var frozenAt: Int64?

    package init(offsetMilliseconds: Int64, frozenAt: Int64?) {
        self.offsetMilliseconds = offsetMilliseconds
        self.frozenAt = frozenAt
    }
}

extension Int64 {
    /// Addition that stops at the ends of the range instead of trapping: the clock takes offsets from
    /// requests, and no request may crash the server.
    func clampedAdding(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }
}
