import GronaJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Structured log lines to standard error, as text for people or JSON for log collectors.
///
/// Standard output is kept for what scripts read (the listening URL). Fields are explicit key/value pairs so
/// that no request body, header or secret ends up in a line by accident: callers pass what they choose.
public struct Logger: Sendable {
    public enum Format: String, Sendable, CaseIterable {
        case text, json
    }

    public enum Level: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
        case debug, info, warning, error

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }
    }

    public var format: Format
    public var minimumLevel: Level
    private let sink: @Sendable (String) -> Void

    /// A logger that writes each line with one `write(2)` to standard error, so lines from several threads
    /// never interleave mid-line.
    public init(format: Format = .text, minimumLevel: Level = .info) {
        self.init(format: format, minimumLevel: minimumLevel) { line in
            var line = line + "\n"
            line.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
        }
    }

    /// A logger that hands each formatted line to `sink` (tests capture lines this way).
    public init(format: Format = .text, minimumLevel: Level = .info, sink: @escaping @Sendable (String) -> Void) {
        self.format = format
        self.minimumLevel = minimumLevel
        self.sink = sink
    }

    /// A logger that drops everything.
    public static let silent = Logger(minimumLevel: .error) { _ in }

    public func debug(_ message: String, _ fields: [(String, String)] = []) { log(.debug, message, fields) }
    public func info(_ message: String, _ fields: [(String, String)] = []) { log(.info, message, fields) }
    public func warning(_ message: String, _ fields: [(String, String)] = []) { log(.warning, message, fields) }
    public func error(_ message: String, _ fields: [(String, String)] = []) { log(.error, message, fields) }

    public func log(_ level: Level, _ message: String, _ fields: [(String, String)] = []) {
        guard level >= minimumLevel else { return }
        sink(render(level, message, fields))
    }

    func render(_ level: Level, _ message: String, _ fields: [(String, String)]) -> String {
        let time = Self.timestamp()
        switch format {
        case .text:
            var line = "\(time) \(level) \(message)"
            for (key, value) in fields {
                let needsQuotes = value.isEmpty || value.contains(" ") || value.contains("\"") || value.contains("=")
                line += " \(key)=" + (needsQuotes ? JSONText.quoted(value) : value)
            }
            return line
        case .json:
            var line = "{\"time\":\"\(time)\",\"level\":\"\(level)\",\"message\":\(JSONText.quoted(message))"
            for (key, value) in fields { line += ",\(JSONText.quoted(key)):\(JSONText.quoted(value))" }
            return line + "}"
        }
    }

    /// RFC 3339 UTC with milliseconds, from the real wall clock (logs follow real time even when the
    /// mock's clock is moved).
    static func timestamp() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var seconds = spec.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))"
            + "T\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2))"
            + ".\(pad(Int(spec.tv_nsec) / 1_000_000, 3))Z"
    }
}
