#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One process as Linux describes it in `/proc/<pid>/stat` (proc(5)): its state, its process group and when
/// it started. The start time, in clock ticks since boot, tells a process from a later one given the same pid.
struct ProcessStat: Equatable {
    /// proc(5)'s one-letter state: R running, S sleeping, D disk sleep, T stopped, Z zombie, X dead, ...
    var state: UInt8
    var processGroup: pid_t
    var startTime: UInt64

    /// A zombie or a dead process: it ran to its end and only waits for its parent to collect its status.
    var hasEnded: Bool { state == UInt8(ascii: "Z") || state == UInt8(ascii: "X") }

    /// What a look-up found.
    enum Lookup: Equatable {
        case found(ProcessStat)
        /// No such process (its `/proc` entry does not exist).
        case gone
        /// It could not be read (no `/proc`, not Linux): nothing can be said.
        case unknown
    }

    /// `/proc/<pid>/stat` of `pid`.
    static func lookUp(_ pid: pid_t) -> Lookup {
        #if os(Linux)
        guard pid > 0 else { return .unknown }
        guard let bytes = readSmallFile("/proc/\(pid)/stat") else { return errno == ENOENT ? .gone : .unknown }
        return ProcessStat(parsing: bytes[...]).map(Lookup.found) ?? .unknown
        #else
        return .unknown
        #endif
    }

    /// Parses the one line of `/proc/<pid>/stat`. The command name (field 2) is in parentheses and may hold
    /// spaces and parentheses of its own, so the fields are counted from the last `)`: state is field 3,
    /// the process group field 5, the start time field 22.
    init?(parsing bytes: ArraySlice<UInt8>) {
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
        guard fields.count >= 20, fields[0].count == 1, let state = fields[0].first,
            let group = Self.number(fields[2]), group <= UInt64(Int32.max),
            let start = Self.number(fields[19])
        else { return nil }
        self.state = state
        self.processGroup = pid_t(group)
        self.startTime = start
    }

    /// A decimal field (a newline may end the last one); nil for anything else, or a value beyond 64 bits.
    private static func number(_ field: ArraySlice<UInt8>) -> UInt64? {
        var digits = field
        if digits.last == UInt8(ascii: "\n") { digits = digits.dropLast() }
        guard !digits.isEmpty, digits.count <= 20 else { return nil }
        var value: UInt64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return value
    }

    /// The boot's identity (`/proc/sys/kernel/random/boot_id`): a start time counts from the boot, so it only
    /// names a process together with the boot. Nil where there is none.
    static let bootID: String? = {
        #if os(Linux)
        guard let bytes = readSmallFile("/proc/sys/kernel/random/boot_id") else { return nil }
        let text = String(decoding: bytes, as: UTF8.self).filter { $0.isHexDigit || $0 == "-" }
        return text.isEmpty ? nil : text
        #else
        return nil
        #endif
    }()

    /// This process's pid namespace (`/proc/self/ns/pid`, e.g. `pid:[4026531836]`): a pid means a process only
    /// within one. Nil where there is none.
    static let pidNamespace: String? = {
        #if os(Linux)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/self/ns/pid", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #else
        return nil
        #endif
    }()

    /// The first 4 KiB of a file that is not a link (a `/proc` file, a record exec wrote); nil with `errno`
    /// set when it cannot be opened or read.
    static func readSmallFile(_ path: String, relativeTo directory: Int32 = AT_FDCWD) -> [UInt8]? {
        let fd = openat(directory, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        var count = 0
        while count < bytes.count {
            let read = bytes.withUnsafeMutableBytes { buffer in
                systemRead(fd, buffer.baseAddress.map { $0 + count }, buffer.count - count)
            }
            if read < 0 && errno == EINTR { continue }
            guard read >= 0 else { return nil }
            if read == 0 { break }
            count += read
        }
        return Array(bytes[..<count])
    }
}

#if canImport(Glibc)
private let systemRead = Glibc.read
#else
private let systemRead = Darwin.read
#endif
