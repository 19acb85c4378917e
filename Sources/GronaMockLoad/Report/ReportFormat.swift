/// How the text report and the progress line write numbers for people: latencies in the unit that keeps three
/// significant digits readable (µs, ms, s), rates and fractions with a fixed number of decimals. No Foundation,
/// so no locale: the output is the same on every machine and can be compared across runs.
enum ReportFormat {
    /// A latency in nanoseconds with about three significant digits in µs, ms or s: `812µs`, `1.21ms`, `12.3ms`,
    /// `1.50s`.
    static func latency(nanoseconds: Double) -> String {
        guard nanoseconds.isFinite, nanoseconds >= 0 else { return "-" }
        let (value, unit): (Double, String) =
            switch nanoseconds {
            case ..<999_500: (nanoseconds / 1_000, "µs")
            case ..<999_500_000: (nanoseconds / 1_000_000, "ms")
            default: (nanoseconds / 1_000_000_000, "s")
            }
        return significant(value) + unit
    }

    static func latency(nanoseconds: UInt64) -> String {
        latency(nanoseconds: Double(nanoseconds))
    }

    /// Three significant digits for values under 1,000, whole numbers above: `8.12`, `81.2`, `812`, `8120`.
    static func significant(_ value: Double) -> String {
        let decimals =
            switch value {
            case ..<9.995: 2
            case ..<99.95: 1
            default: 0
            }
        return fixed(value, decimals: decimals)
    }

    /// `value` rounded to `decimals` places (0 to 6), without exponent: `fixed(2.5, decimals: 1)` is `2.5`,
    /// `fixed(0.0004, decimals: 3)` is `0.000`. Values beyond what an Int64 holds are written whole.
    static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        let places = min(max(decimals, 0), 6)
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9.0e18 else { return value.description }
        let whole = Int64(scaled)
        let sign = value < 0 && whole != 0 ? "-" : ""
        let integerPart = whole / Int64(scale)
        guard places > 0 else { return sign + String(integerPart) }
        let fraction = String(whole % Int64(scale))
        return sign + String(integerPart) + "." + String(repeating: "0", count: places - fraction.count) + fraction
    }

    /// A per-second rate: one decimal under 100, whole above.
    static func rate(_ value: Double) -> String {
        fixed(value, decimals: value < 99.95 ? 1 : 0)
    }

    /// A fraction from 0 to 1 as a percentage with two decimals: `0.25%`.
    static func percent(_ fraction: Double) -> String {
        fixed(fraction * 100, decimals: 2) + "%"
    }

    /// Whole seconds and minutes of a run, short enough for the progress line: `45s`, `2m05s`, `1h02m` (a run
    /// of hours does not need its seconds).
    static func clock(seconds: Double) -> String {
        guard seconds.isFinite, seconds > 0 else { return "0s" }
        let total = Int(min(seconds, 1e9))
        let (hours, minutes, rest) = (total / 3_600, total / 60 % 60, total % 60)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        if hours > 0 { return "\(hours)h\(two(minutes))m" }
        if minutes > 0 { return "\(minutes)m\(two(rest))s" }
        return "\(rest)s"
    }

    /// `count / seconds`, or 0 when no time has passed: a rate of nothing over no time is no rate.
    static func perSecond(_ count: Int, seconds: Double) -> Double {
        seconds.isFinite && seconds > 0 ? Double(count) / seconds : 0
    }

    /// `part / whole`, or 0 when the whole is 0 (an error rate of no requests is 0).
    static func fraction(_ part: Int, of whole: Int) -> Double {
        whole > 0 ? Double(part) / Double(whole) : 0
    }

    /// `text` padded with spaces to `width` characters: on the left for numbers, on the right for names.
    static func pad(_ text: String, _ width: Int, alignRight: Bool = true) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return alignRight ? padding + text : text + padding
    }
}

extension ReportFormat {
    /// A setting as written on the command line: `20`, `0.5`, `2.125` (at most three decimals, no trailing
    /// zeros).
    static func plain(_ value: Double) -> String {
        var text = fixed(value, decimals: 3)
        guard text.contains(".") else { return text }
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// A fraction with up to six decimals and its percentage: `0.000243 (0.02%)`.
    static func fractionWithPercent(_ value: Double) -> String {
        "\(shortest(value)) (\(percent(value)))"
    }

    /// `value` with up to six decimals and no trailing zeros: `0.000243`, `0.05`, `3`.
    static func shortest(_ value: Double) -> String {
        var text = fixed(value, decimals: 6)
        while text.hasSuffix("0"), text.contains(".") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// Text from the server (a violation's message) with control characters shown as `?`, so that nothing
    /// it holds can move the cursor or recolour the terminal the report is printed on.
    static func printable(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : Character($0) })
    }
}
