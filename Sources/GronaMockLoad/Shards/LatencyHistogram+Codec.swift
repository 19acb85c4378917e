import GronaMockJSON

/// A histogram in a `--json` report, lossless so that shards' reports merge exactly (`grona-mock load merge`):
/// every counter, run-length encoded, with the exact count, extremes and sum.
///
/// `counts` lists the counters in index order: a positive number is one counter, a negative number `-k` stands
/// for `k` counters at zero, and the zeros after the last non-zero counter are left out. A run's histogram holds
/// a few hundred non-zero counters of its 190,000 or so, so a report carries a few kilobytes per histogram.
extension LatencyHistogram {
    /// The format of `json`; a reader refuses another.
    package static let codecVersion = 1

    package var json: JSONValue {
        var runs: [JSONValue] = []
        var zeros = 0
        for value in counts {
            if value == 0 {
                zeros += 1
                continue
            }
            if zeros > 0 { runs.append(.number(JSONNumber(-zeros))) }
            zeros = 0
            runs.append(Self.unsigned(value))
        }
        return [
            "version": .number(JSONNumber(Self.codecVersion)),
            "count": Self.unsigned(count),
            "min": Self.unsigned(min),
            "max": Self.unsigned(max),
            "sum": Self.unsigned(sum),
            "counts": .array(runs),
        ]
    }

    /// A histogram from `json` as `json` writes it, checked: the version, the counters within the layout, and
    /// the count, extremes and counters agreeing with one another.
    package init(json: JSONValue) throws(ReportFormatError) {
        guard json["version"]?.int64Value == Int64(Self.codecVersion) else {
            throw ReportFormatError("a histogram of another format (version \(json["version"] ?? .null), not 1)")
        }
        guard let count = json["count"]?.numberValue?.uint64, let min = json["min"]?.numberValue?.uint64,
            let max = json["max"]?.numberValue?.uint64, let sum = json["sum"]?.numberValue?.uint64,
            let runs = json["counts"]?.arrayValue
        else {
            throw ReportFormatError("a histogram without its count, min, max, sum and counts as whole numbers")
        }
        var counts = Array(repeating: UInt64(0), count: Self.countsLength)
        var index = 0
        var total: UInt64 = 0
        for run in runs {
            if let value = run.numberValue?.uint64, value > 0 {
                guard index < counts.count else { throw ReportFormatError("a histogram with too many counters") }
                counts[index] = value
                index += 1
                let (added, overflow) = total.addingReportingOverflow(value)
                guard !overflow else { throw ReportFormatError("a histogram whose counters overflow") }
                total = added
            } else if let skip = run.int64Value, skip < 0, skip >= -Int64(Self.countsLength) {
                index += Int(-skip)
                guard index <= counts.count else { throw ReportFormatError("a histogram with too many counters") }
            } else {
                throw ReportFormatError("a histogram counter that is not a whole number other than 0 (\(run))")
            }
        }
        guard total == count else {
            throw ReportFormatError("a histogram whose counters add up to \(total), not its count \(count)")
        }
        guard count > 0 ? min <= max : min == 0 && max == 0 && sum == 0 else {
            throw ReportFormatError("a histogram whose min, max and sum do not fit its count")
        }
        self.init(checkedCounts: counts, count: count, min: min, max: max, sum: sum)
    }

    /// A UInt64 as a JSON number, whatever its size (JSON numbers have no limit; `JSONNumber(Int64)` has).
    static func unsigned(_ value: UInt64) -> JSONValue {
        if let small = Int64(exactly: value) { return .number(JSONNumber(small)) }
        return JSONNumber(text: String(value)).map(JSONValue.number) ?? .null
    }
}

/// A `--json` report that cannot be read back for a merge: what is wrong, for the message that names the file.
package struct ReportFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
