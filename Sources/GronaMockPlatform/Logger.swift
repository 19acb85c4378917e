import GronaMockJSON

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

    /// Fields are `(name, value)` pairs whose values keep their type (`("status", 200)`, `("file", path)`,
    /// `("served", true)`): see `LogValueConvertible`.
    public typealias Fields = [(String, any LogValueConvertible)]

    public func debug(_ message: String, _ fields: Fields = []) { log(.debug, message, fields) }
    public func info(_ message: String, _ fields: Fields = []) { log(.info, message, fields) }
    public func warning(_ message: String, _ fields: Fields = []) { log(.warning, message, fields) }
    public func error(_ message: String, _ fields: Fields = []) { log(.error, message, fields) }

    public func log(_ level: Level, _ message: String, _ fields: Fields = []) {
        guard level >= minimumLevel else { return }
        sink(render(level, message, fields.map { ($0.0, $0.1.logValue) }))
    }

    func render(_ level: Level, _ message: String, _ fields: [(String, Value)]) -> String {
        let time = Self.timestamp()
        switch format {
        case .text:
            var line = "\(time) \(level) \(message)"
            for (key, value) in fields {
                line += " \(key)=" + value.text
            }
            return line
        case .json:
            var line = "{\"time\":\"\(time)\",\"level\":\"\(level)\",\"message\":\(JSONText.quoted(message))"
            for (key, value) in fields { line += ",\(JSONText.quoted(key)):\(value.json)" }
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

extension Logger {
    /// A field's value with its type, so that a JSON line carries numbers and booleans as JSON numbers and
    /// booleans (`"status":200`, not `"status":"200"`) and a collector can compare and sum them. The type comes
    /// from the caller, never from the text: a string that looks like a number (a workspace key `"123"`) stays a
    /// string, so a field's type never changes from one line to the next.
    public enum Value: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
        ExpressibleByBooleanLiteral
    {
        case string(String)
        case number(JSONNumber)
        case bool(Bool)

        public init(stringLiteral value: String) { self = .string(value) }
        public init(integerLiteral value: Int64) { self = .number(JSONNumber(value)) }
        public init(booleanLiteral value: Bool) { self = .bool(value) }

        /// `value` divided by 10^`decimals`, written with exactly that many decimals (`fixed(1234, decimals: 3)`
        /// is 1.234, `fixed(100, decimals: 3)` is 0.100): a duration measured in microseconds, logged in
        /// milliseconds, keeps its precision in both formats.
        public static func fixed(_ value: Int64, decimals: Int) -> Value {
            let decimals = min(max(decimals, 0), 18)
            guard decimals > 0 else { return .number(JSONNumber(value)) }
            let scale = (0..<decimals).reduce(UInt64(1)) { product, _ in product * 10 }
            let magnitude = value.magnitude
            let fraction = String(magnitude % scale)
            let text =
                (value < 0 ? "-" : "") + String(magnitude / scale) + "."
                + String(repeating: "0", count: decimals - fraction.count) + fraction
            return JSONNumber(text: text).map(Value.number) ?? .string(text)
        }

        /// As a text line writes it: a string in quotes only when it is empty or holds a space, `"` or `=`.
        var text: String {
            switch self {
            case .string(let value):
                let needsQuotes = value.isEmpty || value.contains(" ") || value.contains("\"") || value.contains("=")
                return needsQuotes ? JSONText.quoted(value) : value
            case .number(let number): return number.text
            case .bool(let value): return value ? "true" : "false"
            }
        }

        /// As a JSON line writes it.
        var json: String {
            switch self {
            case .string(let value): JSONText.quoted(value)
            case .number(let number): number.text
            case .bool(let value): value ? "true" : "false"
            }
        }
    }
}

/// A type whose values can be a log field's value, each with its JSON type: strings (and whatever a call site
/// interpolates into one) as strings, integers and finite doubles as numbers, booleans as booleans.
public protocol LogValueConvertible {
    var logValue: Logger.Value { get }
}

extension Logger.Value: LogValueConvertible {
    public var logValue: Logger.Value { self }
}

extension String: LogValueConvertible {
    public var logValue: Logger.Value { .string(self) }
}

extension Substring: LogValueConvertible {
    public var logValue: Logger.Value { .string(String(self)) }
}

extension Bool: LogValueConvertible {
    public var logValue: Logger.Value { .bool(self) }
}

extension Int: LogValueConvertible {
    public var logValue: Logger.Value { .number(JSONNumber(self)) }
}

extension Int64: LogValueConvertible {
    public var logValue: Logger.Value { .number(JSONNumber(self)) }
}

extension Int32: LogValueConvertible {
    public var logValue: Logger.Value { .number(JSONNumber(Int64(self))) }
}

extension UInt64: LogValueConvertible {
    /// Every UInt64 is an integer JSON can write, also above Int64.max.
    public var logValue: Logger.Value {
        JSONNumber(text: String(self)).map(Logger.Value.number) ?? .string(String(self))
    }
}

extension Double: LogValueConvertible {
    /// NaN and the infinities, which JSON cannot write as numbers, are logged as strings (`"nan"`, `"inf"`).
    public var logValue: Logger.Value {
        JSONNumber(self).map(Logger.Value.number) ?? .string(description)
    }
}

extension JSONNumber: LogValueConvertible {
    public var logValue: Logger.Value { .number(self) }
}
