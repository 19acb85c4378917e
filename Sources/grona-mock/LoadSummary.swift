import GronaMockLoad

/// A plain summary of a run and a plain progress line, until the report (Sources/GronaMockLoad/Report/) is
/// wired in at merge.
enum LoadSummary {
    static func progressLine(_ statistics: LoadStatistics, seconds: Double, inFlight: Int) -> String {
        let http = statistics.http
        return "t=\(Int(seconds))s visits \(statistics.visitsStarted)/\(statistics.visitsScheduled) "
            + "dropped \(statistics.visitsDropped) in-flight \(inFlight) events acked \(statistics.eventsAcknowledged) "
            + "errors \(http.errors) p50 \(milliseconds(http.latency.value(atPercentile: 50))) "
            + "p99 \(milliseconds(http.latency.value(atPercentile: 99)))"
    }

    static func text(_ result: LoadRunResult, verification: LoadVerification?) -> String {
        let statistics = result.statistics
        let elapsed = max(result.elapsedSeconds, 0.001)
        var lines = [
            "run \(result.runTag) seed \(result.seed): \(format(elapsed))s",
            "visits: \(statistics.visitsScheduled) scheduled, \(statistics.visitsStarted) started, "
                + "\(statistics.visitsDropped) dropped",
            "events: \(statistics.eventsLogged) logged, \(statistics.eventsAcknowledged) acknowledged "
                + "(\(format(Double(statistics.eventsAcknowledged) / elapsed))/s), \(statistics.eventsAccepted) accepted, "
                + "\(statistics.eventsDuplicate) duplicate, \(statistics.eventsRejected) rejected, "
                + "\(statistics.eventsAbandoned) abandoned, \(statistics.eventsUnsent) unsent",
            "configs: \(statistics.configsVerified) verified, \(statistics.configsRejected) rejected; "
                + "grants: \(statistics.grantsVerified) verified, \(statistics.grantsRejected) rejected",
        ]
        for endpoint in LoadEndpoint.allCases {
            lines.append(line(endpoint.rawValue, statistics[endpoint], elapsed: elapsed))
        }
        lines.append(line("http", statistics.http, elapsed: elapsed))
        if let verification {
            lines.append(
                "verify: \(verification.passed ? "passed" : "FAILED"): \(verification.acknowledged) acknowledged, "
                    + "\(verification.stored) stored, \(verification.lost) lost, "
                    + "\(verification.unacknowledged) unacknowledged, \(verification.doubled) doubled, "
                    + "\(verification.violations) violations")
            for id in verification.sampleLost { lines.append("  lost: \(id)") }
            for violation in verification.sampleViolations { lines.append("  violation: \(violation)") }
        }
        return lines.joined(separator: "\n")
    }

    private static func line(_ name: String, _ statistics: EndpointStatistics, elapsed: Double) -> String {
        let statuses = statistics.statuses.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let failures = statistics.failures.sorted { $0.key < $1.key }.map { "\($0.key.rawValue)=\($0.value)" }
        let latency = statistics.latency
        return "\(name): \(statistics.requests) requests (\(format(Double(statistics.requests) / elapsed))/s), "
            + "\(statistics.retries) retries, statuses [\((statuses + failures).joined(separator: " "))], "
            + "p50 \(milliseconds(latency.value(atPercentile: 50))) p90 \(milliseconds(latency.value(atPercentile: 90))) "
            + "p99 \(milliseconds(latency.value(atPercentile: 99))) p99.9 \(milliseconds(latency.value(atPercentile: 99.9))) "
            + "max \(milliseconds(latency.max))"
    }

    private static func milliseconds(_ nanoseconds: UInt64) -> String { format(Double(nanoseconds) / 1e6) + "ms" }

    private static func format(_ value: Double) -> String {
        let hundredths = (value * 100).rounded()
        guard hundredths.isFinite, abs(hundredths) < 1e15 else { return "\(value)" }
        let whole = Int64(hundredths)
        let fraction = abs(whole % 100)
        return "\(whole / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
