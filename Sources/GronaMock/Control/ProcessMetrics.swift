#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The standard process metrics of Prometheus's client libraries (`process_cpu_seconds_total`,
/// `process_resident_memory_bytes`, `process_open_fds`, `process_max_fds`, `process_start_time_seconds`), with
/// their names and meanings, so a load test's dashboard can put grona-mock beside any other service.
///
/// On Linux they come from `/proc/self` as the Go and Java clients read them: CPU and start time from
/// `/proc/self/stat` (clock ticks; the start is ticks after boot, and boot is `btime` in `/proc/stat`), resident
/// memory from `/proc/self/statm` (pages), open descriptors by listing `/proc/self/fd`. Elsewhere the CPU time
/// comes from `getrusage` and the start from the time this type was first asked; resident memory and open
/// descriptors are left out rather than guessed. A scrape reads a few small files: microseconds.
package enum ProcessMetrics {
    /// One sample: its name, type, help and value.
    package struct Sample: Sendable, Equatable {
        package let name: String
        package let type: String
        package let help: String
        package let value: Double
    }

    /// When the process started, in seconds since the epoch, read once.
    private static let startTime: Double = readStartTime() ?? wallClockNow()

    /// The samples this platform can give now.
    package static func samples() -> [Sample] {
        var samples: [Sample] = []
        if let cpu = cpuSeconds() {
            samples.append(
                Sample(
                    name: "process_cpu_seconds_total", type: "counter",
                    help: "Total user and system CPU time spent in seconds.", value: cpu))
        }
        if let resident = residentBytes() {
            samples.append(
                Sample(
                    name: "process_resident_memory_bytes", type: "gauge", help: "Resident memory size in bytes.",
                    value: resident))
        }
        if let open = openDescriptors() {
            samples.append(
                Sample(
                    name: "process_open_fds", type: "gauge", help: "Number of open file descriptors.", value: open))
        }
        var limit = rlimit()
        // "Unlimited" (RLIM_INFINITY) is left out: it is no number of descriptors.
        if getrlimit(resourceNoFile, &limit) == 0, limit.rlim_cur < rlim_t(Int32.max) {
            samples.append(
                Sample(
                    name: "process_max_fds", type: "gauge", help: "Maximum number of open file descriptors.",
                    value: Double(limit.rlim_cur)))
        }
        samples.append(
            Sample(
                name: "process_start_time_seconds", type: "gauge",
                help: "Start time of the process since unix epoch in seconds.", value: startTime))
        return samples
    }

    /// The samples in the Prometheus text format (version 0.0.4).
    package static func exposition() -> String {
        var text = ""
        for sample in samples() {
            MetricsText.header(sample.name, sample.type, sample.help, &text)
            text += "\(sample.name) \(MetricsText.number(sample.value))\n"
        }
        return text
    }

    #if os(Linux)
    private static let resourceNoFile = Int32(RLIMIT_NOFILE.rawValue)

    /// `/proc/self/stat` after the command name: the name is in parentheses and may hold spaces or `)`, so the
    /// fields are counted from the last `)`. Field 3 is the state; utime and stime are fields 14 and 15; the start
    /// time is field 22.
    private static func statFields() -> [Substring]? {
        guard let text = readSmallFile("/proc/self/stat"), let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    private static var ticksPerSecond: Double {
        let ticks = sysconf(Int32(_SC_CLK_TCK))
        return ticks > 0 ? Double(ticks) : 100
    }

    private static func cpuSeconds() -> Double? {
        // After the name: index 0 is field 3 (state), so field N is index N - 3.
        guard let fields = statFields(), fields.count > 12, let user = Double(fields[11]),
            let system = Double(fields[12])
        else { return nil }
        return (user + system) / ticksPerSecond
    }

    private static func residentBytes() -> Double? {
        guard let text = readSmallFile("/proc/self/statm") else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return nil }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
    }

    private static func openDescriptors() -> Double? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        // Only the name's first byte is read, in place: a record `readdir` returns is as long as its name
        // (`d_reclen`), not `sizeof(struct dirent)`, so copying `entry.pointee` whole can read past the end of
        // the directory's buffer, and did crash a scrape.
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 19
        var count = 0
        while let entry = readdir(directory) {
            let first = UnsafeRawPointer(entry).load(fromByteOffset: nameOffset, as: UInt8.self)
            if first != UInt8(ascii: ".") { count += 1 }
        }
        // The directory being listed holds a descriptor of its own.
        return Double(Swift.max(0, count - 1))
    }

    private static func readStartTime() -> Double? {
        guard let fields = statFields(), fields.count > 19, let startTicks = Double(fields[19]),
            let stat = readSmallFile("/proc/stat")
        else { return nil }
        for line in stat.split(separator: "\n") where line.hasPrefix("btime ") {
            guard let boot = Double(line.dropFirst(6).trimmingPrefix(while: { $0 == " " })) else { return nil }
            return boot + startTicks / ticksPerSecond
        }
        return nil
    }

    /// Reads a file of /proc whole (they are a few hundred bytes, and their size reads as 0).
    private static func readSmallFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes.append(contentsOf: buffer[..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
    #else
    private static let resourceNoFile = RLIMIT_NOFILE

    private static func cpuSeconds() -> Double? {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    private static func residentBytes() -> Double? { nil }
    private static func openDescriptors() -> Double? { nil }
    private static func readStartTime() -> Double? { nil }
    #endif

    private static func wallClockNow() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1_000_000_000
    }
}
