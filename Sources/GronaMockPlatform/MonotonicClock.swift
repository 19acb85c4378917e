#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Nanoseconds from an arbitrary start that never jump: for timeouts and durations, which must not follow
/// changes to the wall clock (or to the mock's own controllable clock).
package enum MonotonicClock {
    package static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// `start` plus `duration`, saturating: a timeout configured as "for ever" (`.seconds(.max)`) must mean
    /// never, not a trap or a deadline that wrapped into the past.
    package static func deadline(from start: UInt64, after duration: Duration) -> UInt64 {
        let (sum, overflow) = start.addingReportingOverflow(duration.nanoseconds)
        return overflow ? .max : sum
    }
}

extension Duration {
    /// Whole nanoseconds, saturating at UInt64.max (and 0 for a negative duration), for comparisons with
    /// `MonotonicClock.now()`.
    package var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        // A negative duration under a second has seconds 0 and negative attoseconds (both truncate to zero).
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return .max }
        let (total, carried) = whole.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        return carried ? .max : total
    }

    /// Whole milliseconds, rounded towards zero and saturating at the ends of Int64: durations come from
    /// callers (a test's timeout), and no value may trap.
    package var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (total, carried) = whole.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        return carried ? (seconds < 0 ? .min : .max) : total
    }
}
