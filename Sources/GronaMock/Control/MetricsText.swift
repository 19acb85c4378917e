/// The pieces of the Prometheus text format (version 0.0.4) that every metric shares.
enum MetricsText {
    static func header(_ name: String, _ type: String, _ help: String, _ out: inout String) {
        out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    /// A label value, quoted and escaped (backslash, quote, newline).
    static func label(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return "\"\(escaped)\""
    }

    /// A sample value: whole numbers without a fraction.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// A cumulative histogram with fixed bucket bounds.
struct MetricsHistogram {
    let bounds: [Double]
    private(set) var counts: [Int]
    private(set) var sum = 0.0
    private(set) var total = 0

    init(bounds: [Double]) {
        self.bounds = bounds
        counts = Array(repeating: 0, count: bounds.count)
    }

    mutating func observe(_ value: Double) {
        for (index, bound) in bounds.enumerated() where value <= bound { counts[index] += 1 }
        sum += value
        total += 1
    }

    /// `name_bucket`, `name_sum` and `name_count` lines; `labels` is empty or ends with a comma.
    func render(_ name: String, _ labels: String, _ out: inout String) {
        for (index, bound) in bounds.enumerated() {
            out += "\(name)_bucket{\(labels)le=\"\(MetricsText.number(bound))\"} \(counts[index])\n"
        }
        out += "\(name)_bucket{\(labels)le=\"+Inf\"} \(total)\n"
        let plain = labels.isEmpty ? "" : "{\(labels.dropLast())}"
        out += "\(name)_sum\(plain) \(MetricsText.number(sum))\n"
        out += "\(name)_count\(plain) \(total)\n"
    }
}
