#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Unix epoch milliseconds from the system's clock: event timestamps and `sentAt` (contract §7).
enum WallClock {
    static func milliseconds() -> Int64 {
        nanoseconds() / 1_000_000
    }

    /// Unix epoch nanoseconds: the clock of the kernel's receive stamps (SO_TIMESTAMPNS).
    static func nanoseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }
}
