/// A threshold measured against a finished run.
package struct ThresholdResult: Sendable, Equatable {
    package var threshold: Threshold
    /// The measured figure in the threshold's own terms: a latency in the expression's unit (`events.p99<10ms`
    /// measures in ms), a count, a rate per second or a fraction. Nil when there is nothing to measure: a
    /// latency of an endpoint that had no requests, or a `verify.*` figure of a run that did not verify.
    package var value: Double?
    /// The comparison held. A threshold without a value is not passed, whatever its comparison.
    package var passed: Bool

    package init(threshold: Threshold, value: Double?, passed: Bool) {
        self.threshold = threshold
        self.value = value
        self.passed = passed
    }
}

extension Threshold {
    /// Measures the metric in `report` (its own threshold results play no part) and compares.
    package func evaluate(against report: LoadReport) -> ThresholdResult {
        guard let measured = metric.measure(in: report) else {
            return ThresholdResult(threshold: self, value: nil, passed: false)
        }
        return ThresholdResult(
            threshold: self, value: measured / (unit?.nanoseconds ?? 1), passed: comparison.holds(measured, limit))
    }
}

extension ThresholdMetric {
    /// The figure in `report`, in nanoseconds for a latency. Rates over nothing are 0: an error rate of 0
    /// requests, a drop rate of 0 scheduled visits, a rate per second over no elapsed time.
    package func measure(in report: LoadReport) -> Double? {
        let statistics = report.statistics
        switch self {
        case .latency(let scope, let statistic):
            return statistic.nanoseconds(in: scope.statistics(in: statistics).latency)
        case .requests(let scope, let statistic):
            let endpoint = scope.statistics(in: statistics)
            return switch statistic {
            case .rps: report.perSecond(endpoint.requests)
            case .count: Double(endpoint.requests)
            case .errors: Double(endpoint.errors)
            case .errorRate: ReportFormat.fraction(endpoint.errors, of: endpoint.requests)
            }
        case .run(let statistic):
            return switch statistic {
            case .retries: Double(statistics.http.retries)
            case .droppedCount: Double(statistics.visitsDropped)
            case .droppedRate: ReportFormat.fraction(statistics.visitsDropped, of: statistics.visitsScheduled)
            case .eventsAcknowledged: Double(statistics.eventsAcknowledged)
            case .eventsAcknowledgedRate: report.perSecond(statistics.eventsAcknowledged)
            case .eventsAbandoned: Double(statistics.eventsAbandoned)
            case .eventsRejected: Double(statistics.eventsRejected)
            case .eventsUnsent: Double(statistics.eventsUnsent)
            case .eventsUnconfirmed: Double(statistics.eventsUnconfirmed)
            case .configsRejected: Double(statistics.configsRejected)
            case .grantsRejected: Double(statistics.grantsRejected)
            case .verifyLost: report.verification.map { Double($0.lost) }
            case .verifyUnacknowledged: report.verification.map { Double($0.unacknowledged) }
            case .verifyDoubled: report.verification.map { Double($0.doubled) }
            case .verifyViolations: report.verification.map { Double($0.violations) }
            }
        }
    }
}
