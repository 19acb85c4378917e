/// When visits are due in an open model (k6's `ramping-arrival-rate`, wrk2's constant throughput): the rate
/// climbs linearly from `rampFrom` to `rate` over `rampSeconds`, then holds, whatever the answers do. The
/// number of visits due by time `t` is the integral of the rate, and visit `n` is due when that integral
/// reaches `n`: its intended start, from which the latency of what it sends is measured.
package struct ArrivalSchedule: Sendable, Equatable {
    package var rate: Double
    package var rampFrom: Double
    package var rampSeconds: Double
    package var durationSeconds: Double

    package init(rate: Double, rampFrom: Double = 0, rampSeconds: Double = 0, durationSeconds: Double) {
        self.rate = max(0, rate)
        self.rampFrom = max(0, rampFrom)
        self.rampSeconds = max(0, rampSeconds)
        self.durationSeconds = max(0, durationSeconds)
    }

    /// Visits the ramp holds (its area).
    private var rampVisits: Double { (rampFrom + rate) / 2 * rampSeconds }

    /// How many visits are due by `seconds` after the start (the integral of the rate), before the run ends.
    package func visitsDue(by seconds: Double) -> Int {
        let t = min(max(seconds, 0), durationSeconds)
        let area: Double
        if t < rampSeconds {
            area = rampFrom * t + (rate - rampFrom) * t * t / (2 * rampSeconds)
        } else {
            area = rampVisits + rate * (t - rampSeconds)
        }
        // A hair of tolerance, so that visit n is due exactly at dueTime(n) despite rounding.
        return Int((area + 1e-9).rounded(.down))
    }

    /// Every visit the run schedules.
    package var totalVisits: Int { visitsDue(by: durationSeconds) }

    /// Seconds after the start at which visit `n` (1, 2, ...) is due; nil beyond the run. Always within the
    /// run: `visitsDue`'s tolerance can count a visit whose exact time lies a hair past the end, and at a
    /// tiny rate (`--rate 1e-300`) that hair is 10^290 s, which no clock can hold.
    package func dueTime(ofVisit n: Int) -> Double? {
        guard n >= 1, n <= totalVisits else { return nil }
        let seconds = exactDueTime(of: Double(n))
        guard seconds.isFinite else { return durationSeconds }
        return min(max(seconds, 0), durationSeconds)
    }

    private func exactDueTime(of target: Double) -> Double {
        if target <= rampVisits && rampSeconds > 0 {
            // rampFrom·t + a·t² = n with a = (rate - rampFrom) / (2·ramp).
            let a = (rate - rampFrom) / (2 * rampSeconds)
            if abs(a) < 1e-12 { return target / rampFrom }
            let discriminant = max(0, rampFrom * rampFrom + 4 * a * target)
            return (-rampFrom + discriminant.squareRoot()) / (2 * a)
        }
        return rampSeconds + (target - rampVisits) / rate
    }
}

/// Hands out the visits that are due, each with its intended start, however late the loop comes to ask: a loop
/// that stalled for a second finds a second's worth of visits due, all stamped with the times they were due.
package struct VisitClock: Sendable {
    package let schedule: ArrivalSchedule
    /// `MonotonicClock` nanoseconds at the start of the run.
    package let start: UInt64
    /// Visits handed out so far.
    package private(set) var issued = 0
    private var nextDue: UInt64?

    package init(schedule: ArrivalSchedule, start: UInt64) {
        self.schedule = schedule
        self.start = start
        nextDue = Self.time(of: 1, schedule, start)
    }

    /// The intended start of the next visit if it is due at `now`.
    package mutating func nextVisit(now: UInt64) -> UInt64? {
        guard let due = nextDue, due <= now else { return nil }
        issued += 1
        nextDue = Self.time(of: issued + 1, schedule, start)
        return due
    }

    /// When the next visit is due; nil when none is left.
    package var nextDueTime: UInt64? { nextDue }

    private static func time(of visit: Int, _ schedule: ArrivalSchedule, _ start: UInt64) -> UInt64? {
        guard let seconds = schedule.dueTime(ofVisit: visit) else { return nil }
        // A schedule built outside the options (a duration of 10^11 s) must not trap the conversion.
        let nanoseconds = (seconds * 1e9).rounded()
        guard nanoseconds < 1.8e19 else { return .max }
        let (due, overflow) = start.addingReportingOverflow(UInt64(nanoseconds))
        return overflow ? .max : due
    }
}
