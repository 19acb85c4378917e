/// The report printed at the end of a run, for people: the settings, the fleet's counts, a table of requests
/// and latencies by endpoint (from the intended start of each request, p50 to max from the HDR histograms),
/// statuses and transport failures, the verification and the thresholds, each with PASS or FAIL.
extension LoadReport {
    package var text: String {
        var lines = settingsLines
        lines.append("")
        lines += countLines
        lines.append("")
        lines += endpointTable.lines
        lines += lagLines
        lines.append("")
        lines += statusLines
        if let verification {
            lines.append("")
            lines += Self.lines(of: verification)
        }
        if !thresholds.isEmpty {
            lines.append("")
            lines.append("thresholds")
            var table = TextTable(leftAlignedColumns: 3)
            for result in thresholds {
                table.append([
                    "  " + (result.passed ? "PASS" : "FAIL"), result.threshold.expression, Self.measured(result),
                ])
            }
            lines += table.lines
        }
        let warnings = self.warnings
        if !warnings.isEmpty {
            lines.append("")
            lines += Self.block("warnings", warnings.map { "\($0.code.rawValue): \($0.message)" })
        }
        lines.append("")
        lines.append(Self.label("result") + resultSummary(warnings: warnings.count))
        return lines.joined(separator: "\n") + "\n"
    }

    private var settingsLines: [String] {
        let ramp =
            run.rampSeconds > 0
            ? " (ramp from \(ReportFormat.plain(run.rampFrom)) over \(ReportFormat.plain(run.rampSeconds))s)" : ""
        let tag = run.runTag.map { ", run tag \(ReportFormat.printable($0))" } ?? ""
        var lines = [
            "grona-mock load \(run.version): \(run.displayURL), workspace \(run.workspace), seed \(run.seed)\(tag)"
        ]
        // A replay has no rate of its own: its visits come when the file says, at --speed (`shardLine` says so).
        if replay == nil {
            lines.append(
                "  \(run.installs) installs, \(ReportFormat.plain(run.rate)) visits/s\(ramp) for "
                    + "\(ReportFormat.plain(run.durationSeconds))s")
        }
        lines.append(
            "  batches of \(run.batchSize) events or "
                + "\(ReportFormat.plain(run.batchAgeSeconds))s, \(run.gzip ? "gzipped" : "uncompressed"); "
                + "at most \(run.maxInFlight) requests in flight")
        if run.offlineShare > 0 {
            lines.append(
                "  offline: \(ReportFormat.plain(run.offlineShare * 100))% of installs, once each, for "
                    + "\(ReportFormat.plain(run.offlineSeconds))s")
        }
        let interrupted = statistics.interrupted ? ", interrupted (Ctrl-C): the figures cover what ran" : ""
        if let shardLine { lines.append(shardLine) }
        lines.append("  elapsed \(ReportFormat.fixed(elapsedSeconds, decimals: 1))s" + interrupted)
        return lines
    }

    private var countLines: [String] {
        let counts = statistics
        let dropped = ReportFormat.percent(ReportFormat.fraction(counts.visitsDropped, of: counts.visitsScheduled))
        let acknowledgedRate = ReportFormat.rate(perSecond(counts.eventsAcknowledged))
        return [
            Self.label("visits") + "scheduled \(counts.visitsScheduled), started \(counts.visitsStarted), "
                + "dropped \(counts.visitsDropped) (\(dropped))",
            Self.label("events") + "logged \(counts.eventsLogged), acknowledged \(counts.eventsAcknowledged) "
                + "(\(acknowledgedRate)/s), accepted \(counts.eventsAccepted), duplicate \(counts.eventsDuplicate), "
                + "rejected \(counts.eventsRejected), abandoned \(counts.eventsAbandoned), "
                + "unsent \(counts.eventsUnsent)"
                + (counts.eventsUnconfirmed > 0 ? ", unconfirmed \(counts.eventsUnconfirmed)" : ""),
            Self.label("configs") + "verified \(counts.configsVerified), rejected \(counts.configsRejected)",
            Self.label("grants") + "verified \(counts.grantsVerified), rejected \(counts.grantsRejected)",
        ]
    }

    /// The latency columns of the table.
    private static let tableLatencies: [LatencyStatistic] = [.p50, .p90, .p99, .p999, .max]

    private var endpointTable: TextTable {
        var table = TextTable()
        table.append(["endpoint", "requests", "req/s", "errors", "retries"] + Self.tableLatencies.map(\.rawValue))
        for scope in LoadScope.allCases {
            let endpoint = scope.statistics(in: statistics)
            let latencies = Self.tableLatencies.map { statistic in
                statistic.nanoseconds(in: endpoint.latency).map { ReportFormat.latency(nanoseconds: $0) } ?? "-"
            }
            table.append(
                [
                    scope.name, String(endpoint.requests), ReportFormat.rate(perSecond(endpoint.requests)),
                    String(endpoint.errors), String(endpoint.retries),
                ] + latencies)
        }
        return table
    }

    /// `start lag   p50 40µs, p99 1.20ms, max 6.10ms (…)`: how late the generator handed requests to its client,
    /// and, where the kernel stamps what it receives (Linux), how long answers waited before it read them.
    private var lagLines: [String] {
        var lines = [
            Self.lagLine(
                "start lag", statistics.http.startLag, "the part before the generator handed each request over")
        ]
        if HTTPClient.stampsAnswers {
            lines.append(
                Self.lagLine(
                    "answer lag", statistics.http.answerLag, "the part each answer waited before the generator read it")
            )
        }
        return lines
    }

    private static func lagLine(_ name: String, _ lag: LatencyHistogram, _ meaning: String) -> String {
        let figures = LoadReport.lagStatistics.map { statistic in
            "\(statistic.rawValue) "
                + (statistic.nanoseconds(in: lag).map { ReportFormat.latency(nanoseconds: $0) } ?? "-")
        }
        return label(name) + figures.joined(separator: ", ") + " (of the latencies above, \(meaning))"
    }

    private var statusLines: [String] {
        var statuses: [String] = []
        var failures: [String] = []
        for endpoint in LoadEndpoint.allCases {
            let figures = statistics[endpoint]
            let name = ReportFormat.pad(endpoint.rawValue, 7, alignRight: false)
            if !figures.statuses.isEmpty {
                let counts = figures.statuses.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
                statuses.append(name + counts.joined(separator: ", "))
            }
            if !figures.failures.isEmpty {
                let counts = figures.failures.sorted { $0.key < $1.key }.map { "\($0.key.rawValue) \($0.value)" }
                failures.append(name + counts.joined(separator: ", "))
            }
        }
        return Self.block("statuses", statuses.isEmpty ? ["none"] : statuses)
            + Self.block("failures", failures.isEmpty ? ["none"] : failures)
    }

    private static func lines(of verification: LoadVerification) -> [String] {
        var lines = [
            Self.label("verify") + (verification.passed ? "PASS" : "FAIL")
                + "  acknowledged \(verification.acknowledged), stored \(verification.stored), "
                + "lost \(verification.lost), unacknowledged \(verification.unacknowledged), "
                + "doubled \(verification.doubled), violations \(verification.violations)"
        ]
        for (name, sample) in [
            ("lost", verification.sampleLost), ("unacknowledged", verification.sampleUnacknowledged),
        ]
        where !sample.isEmpty {
            let ids = sample.prefix(LoadVerification.sampleLimit).map(ReportFormat.printable)
            lines.append(label("") + name + ": " + ids.joined(separator: ", "))
        }
        for violation in verification.sampleViolations.prefix(LoadVerification.sampleLimit) {
            lines.append(label("") + "violation " + ReportFormat.printable(violation))
        }
        return lines
    }

    /// The measured figure of a threshold, as the text report shows it.
    private static func measured(_ result: ThresholdResult) -> String {
        let metric = result.threshold.metric
        guard let value = result.value else { return metric.needsVerification ? "not verified" : "no requests" }
        return switch metric.kind {
        case .latency: ReportFormat.latency(nanoseconds: value * (result.threshold.unit?.nanoseconds ?? 1))
        case .count: ReportFormat.plain(value)
        case .perSecond: ReportFormat.rate(value) + "/s"
        case .fraction: ReportFormat.fractionWithPercent(value)
        }
    }

    /// PASS or FAIL as the exit status has it, and how many warnings there were: they do not fail a run, but a
    /// PASS under them should not read as a clean one.
    private func resultSummary(warnings: Int) -> String {
        var reasons: [String] = []
        if verification?.passed == false { reasons.append("verification failed") }
        let broken = thresholds.filter { !$0.passed }.count
        if broken > 0 { reasons.append("\(broken) of \(thresholds.count) thresholds broken") }
        let verdict = reasons.isEmpty ? "PASS" : "FAIL (" + reasons.joined(separator: "; ") + ")"
        return switch warnings {
        case 0: verdict
        case 1: verdict + ", with 1 warning"
        default: verdict + ", with \(warnings) warnings"
        }
    }

    /// A section's name in a 12-column margin.
    private static func label(_ name: String) -> String { ReportFormat.pad(name, 12, alignRight: false) }

    /// The first line after the label, the others under it.
    private static func block(_ name: String, _ lines: [String]) -> [String] {
        lines.enumerated().map { ($0.offset == 0 ? label(name) : label("")) + $0.element }
    }
}
