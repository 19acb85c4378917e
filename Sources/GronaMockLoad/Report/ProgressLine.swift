/// The status of a running load test, from two snapshots of its statistics taken `intervalSeconds` apart:
///
///     12s/1m00s  visits 19.8/s of 20  events 312/s  in flight 14  errors 3  p50 1.21ms  p99 8.40ms
///
/// Rates (visits started, events acknowledged) are of the interval, so that a stall shows at once, and the
/// visit rate is set beside the schedule's mean rate over the same interval (on a ramp, not the rate at its
/// end, which a fleet keeping to the schedule would always fall short of). In plain mode, where the interval
/// is 5 seconds, the line says so (`over 5s`). Errors and dropped visits are counted since the start. The
/// latency percentiles come from `intervalLatency` when the engine keeps one (a histogram it records into
/// beside the cumulative one and replaces every interval: the HDR histogram cannot subtract); without it,
/// from the whole run so far, marked `p99(run)`. After `--duration`, no visit starts and `draining` stands
/// where the visit rate was.
package struct ProgressLine: Sendable {
    package var previous: LoadStatistics
    package var current: LoadStatistics
    /// Seconds between the two snapshots.
    package var intervalSeconds: Double
    /// Seconds since the run started, and how long visits are started for.
    package var elapsedSeconds: Double
    package var durationSeconds: Double
    /// Visits per second the schedule asked for over the interval, on average.
    package var targetRate: Double
    /// Requests sent and not yet answered.
    package var inFlight: Int
    /// Requests waiting behind the in-flight cap for a connection; shown when there are some.
    package var queued: Int
    /// Past `--duration`: the last batches are being sent and answered.
    package var draining: Bool
    /// Latencies of the requests that ended during the interval, if the engine keeps them.
    package var intervalLatency: LatencyHistogram?

    /// A terminal's width; the line is kept one shorter, since writing the last column makes some terminals
    /// wrap.
    package static let columns = 80
    /// Carriage return, then ANSI EL2 (erase the whole line).
    static let eraseLine = "\r\u{1B}[2K"

    package init(
        previous: LoadStatistics, current: LoadStatistics, intervalSeconds: Double, elapsedSeconds: Double,
        durationSeconds: Double, targetRate: Double, inFlight: Int, queued: Int = 0, draining: Bool = false,
        intervalLatency: LatencyHistogram? = nil
    ) {
        self.previous = previous
        self.current = current
        self.intervalSeconds = intervalSeconds
        self.elapsedSeconds = elapsedSeconds
        self.durationSeconds = durationSeconds
        self.targetRate = targetRate
        self.inFlight = inFlight
        self.queued = queued
        self.draining = draining
        self.intervalLatency = intervalLatency
    }

    /// What the engine writes to standard error in `mode`: on a terminal, erase the line and write the
    /// fitted status without a newline; otherwise the whole status and a newline; nothing when off.
    package func rendered(for mode: ProgressMode) -> String {
        switch mode {
        case .terminal: Self.eraseLine + fitted(width: Self.columns - 1)
        case .plain: fields(over: true).map(\.text).joined(separator: "  ") + "\n"
        case .off: ""
        }
    }

    /// The status in at most `width` characters: the least important fields are left out until it fits.
    package func fitted(width: Int) -> String {
        var kept = fields(over: false)
        var line = kept.map(\.text).joined(separator: "  ")
        while line.count > width, let least = kept.indices.max(by: { kept[$0].rank < kept[$1].rank }) {
            guard kept.count > 1 else { break }
            kept.remove(at: least)
            line = kept.map(\.text).joined(separator: "  ")
        }
        return String(line.prefix(max(width, 0)))
    }

    /// One piece of the status; a higher rank goes first when the line is too long.
    private struct Field {
        var text: String
        var rank: Int
    }

    /// The fields in order; `over` names the interval after the visit rate, for lines far apart.
    private func fields(over: Bool) -> [Field] {
        let http = current.http
        let eventRate = rate(current.eventsAcknowledged, since: previous.eventsAcknowledged)
        var fields = [
            Field(
                text: ReportFormat.clock(seconds: elapsedSeconds) + "/" + ReportFormat.clock(seconds: durationSeconds),
                rank: 5),
            Field(text: draining ? "draining" : visitText(over: over), rank: 0),
        ]
        if current.visitsDropped > 0 { fields.append(Field(text: "dropped \(current.visitsDropped)", rank: 1)) }
        fields.append(Field(text: "events \(ReportFormat.rate(eventRate))/s", rank: 2))
        fields.append(Field(text: "in flight \(max(inFlight, 0))", rank: 4))
        if queued > 0 { fields.append(Field(text: "queued \(queued)", rank: 2)) }
        fields.append(Field(text: "errors \(http.errors)", rank: 1))
        let latency = intervalLatency ?? http.latency
        let suffix = intervalLatency == nil ? "(run)" : ""
        for (statistic, rank) in [(LatencyStatistic.p50, 6), (.p99, 3)] {
            let value = statistic.nanoseconds(in: latency).map { ReportFormat.latency(nanoseconds: $0) } ?? "-"
            fields.append(Field(text: "\(statistic.rawValue)\(suffix) \(value)", rank: rank))
        }
        return fields
    }

    /// `visits 19.8/s of 20`, and ` over 5s` when asked.
    private func visitText(over: Bool) -> String {
        let visitRate = rate(current.visitsStarted, since: previous.visitsStarted)
        let target = targetRate.isFinite ? ReportFormat.rate(max(targetRate, 0)) : "-"
        let interval = over ? " over " + ReportFormat.clock(seconds: intervalSeconds.rounded()) : ""
        return "visits \(ReportFormat.rate(visitRate))/s of \(target)\(interval)"
    }

    /// The growth of a count over the interval, per second. Both counts are clamped to 0 or more before the
    /// subtraction, so it cannot overflow; a count that went down (snapshots swapped) is no rate.
    private func rate(_ count: Int, since earlier: Int) -> Double {
        ReportFormat.perSecond(max(max(count, 0) - max(earlier, 0), 0), seconds: intervalSeconds)
    }
}
