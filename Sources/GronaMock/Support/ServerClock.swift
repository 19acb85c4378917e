import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The time the mock believes it is: the wall clock, shifted by an offset, or frozen.
///
/// Everything the contract dates (configuration `issuedAt`, grant windows and claims, schedules, event
/// `receivedAt`) reads this clock, so a test can move time without waiting. Logs and timeouts do not.
public final class ServerClock: Sendable {
    private struct State {
        var offsetMilliseconds: Int64 = 0
        var frozenAt: Int64?
    }

    private let state = Mutex(State())

    public init() {}

    /// Unix epoch milliseconds, as the mock sees them.
    public func nowMilliseconds() -> Int64 {
        let (offset, frozen) = state.withLock { ($0.offsetMilliseconds, $0.frozenAt) }
        return frozen ?? Self.wallMilliseconds().clampedAdding(offset)
    }

    /// Unix epoch seconds, as the mock sees them.
    public func nowSeconds() -> Int64 {
        let milliseconds = nowMilliseconds()
        return milliseconds >= 0 ? milliseconds / 1000 : milliseconds.clampedAdding(-999) / 1000
    }

    static func wallMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    /// Shifts the clock by `milliseconds` (a frozen clock stays frozen, at the shifted time).
    public func advance(byMilliseconds milliseconds: Int64) {
        state.withLock { state in
            state.offsetMilliseconds = state.offsetMilliseconds.clampedAdding(milliseconds)
            if let frozen = state.frozenAt { state.frozenAt = frozen.clampedAdding(milliseconds) }
        }
    }

    /// Stops the clock at `milliseconds` (or at now, when nil).
    public func freeze(atMilliseconds milliseconds: Int64? = nil) {
        let at = milliseconds ?? nowMilliseconds()
        state.withLock { $0.frozenAt = at }
    }

    /// Lets a frozen clock run again from where it stood.
    public func unfreeze() {
        let wall = Self.wallMilliseconds()
        state.withLock { state in
            if let frozen = state.frozenAt { state.offsetMilliseconds = frozen.clampedAdding(-wall) }
            state.frozenAt = nil
        }
    }

    /// Sets the offset from the wall clock (a frozen clock stays frozen).
    public func setOffset(milliseconds: Int64) {
        state.withLock { $0.offsetMilliseconds = milliseconds }
    }

    /// Now, the offset, and whether the clock is frozen, read together.
    public func snapshot() -> (now: Int64, offsetMilliseconds: Int64, frozen: Bool) {
        let (offset, frozen) = state.withLock { ($0.offsetMilliseconds, $0.frozenAt) }
        return (frozen ?? Self.wallMilliseconds().clampedAdding(offset), offset, frozen != nil)
    }

    /// Back to the wall clock.
    public func reset() {
        state.withLock { $0 = State() }
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
