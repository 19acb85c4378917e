import GronaMockLoad
import GronaMockPlatform

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `grona-mock load` checks and says before the first visit: a `--json` file that could not be written
/// is a usage error now rather than a lost report after the run, settings that will not do what they seem
/// are warned about, and the start line repeats what is about to run.
extension LoadCommand {
    /// The report is written at the end through a temporary file beside `path` and a rename: the same is
    /// tried now (created, then removed), so a missing directory or a read-only one fails before the load.
    static func checkWritable(_ path: String) throws(UsageError) {
        guard !path.isEmpty else { throw UsageError("--json needs a file name, or - for standard output") }
        guard !FileSystem.isDirectory(path) else { throw UsageError("--json: \(path) is a directory") }
        let probe = path + ".tmp-\(getpid())"
        let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw UsageError("--json: cannot write \(path): \(String(cString: strerror(errno)))")
        }
        close(fd)
        unlink(probe)
    }

    /// Settings that are allowed but will not do what they may seem to.
    static func warnings(for settings: LoadSettings) -> [String] {
        var warnings: [String] = []
        if settings.ramp > settings.duration {
            warnings.append(
                "--ramp \(clock(settings.ramp)) is longer than --duration \(clock(settings.duration)): the run "
                    + "ends before the rate reaches \(rate(settings.rate)) visits/s")
        }
        return warnings
    }

    /// `grona-mock load: 100 installs at 20 visits/s for 2m00s against http://…` (the progress line's clock).
    static func startLine(_ settings: LoadSettings) -> String {
        var line = "grona-mock load: \(settings.installs) installs at \(rate(settings.rate)) visits/s"
        if settings.ramp > .zero {
            line += " (ramp from \(rate(settings.rampFrom)) over \(clock(settings.ramp)))"
        }
        return line
            + " for \(clock(settings.duration)) against \(settings.url) (workspace \(settings.workspace), seed "
            + "\(settings.seed), run \(settings.runTag))"
    }

    /// `45s`, `2m05s`, `1h02m` as the progress line writes a run's time; `500ms` or `1.5s` for what is not
    /// whole seconds.
    static func clock(_ duration: Duration) -> String {
        let milliseconds = duration.nanoseconds / 1_000_000
        guard milliseconds % 1000 == 0 else {
            return milliseconds < 1000 ? "\(milliseconds)ms" : "\(Double(milliseconds) / 1000)s"
        }
        let total = milliseconds / 1000
        let (hours, minutes, seconds) = (total / 3_600, total / 60 % 60, total % 60)
        func two(_ value: UInt64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        if hours > 0 { return "\(hours)h\(two(minutes))m" }
        if minutes > 0 { return "\(minutes)m\(two(seconds))s" }
        return "\(seconds)s"
    }

    /// `20`, `2.5`: a rate without a needless `.0`.
    static func rate(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
