/// The words of a threshold expression (`events.p99<10ms`, `errors.rate<0.001`), each defined once here: the
/// parser reads them, the error messages list them, and the report writes them back.

/// What a figure covers: one endpoint, or all of them together (`http`).
package enum LoadScope: Hashable, Sendable, CaseIterable {
    case endpoint(LoadEndpoint)
    case http

    package static var allCases: [LoadScope] { LoadEndpoint.allCases.map { .endpoint($0) } + [.http] }

    package init?(name: some StringProtocol) {
        if name == "http" {
            self = .http
        } else if let endpoint = LoadEndpoint(rawValue: String(name)) {
            self = .endpoint(endpoint)
        } else {
            return nil
        }
    }

    package var name: String {
        switch self {
        case .endpoint(let endpoint): endpoint.rawValue
        case .http: "http"
        }
    }

    /// The statistics of this scope in a run's.
    package func statistics(in statistics: LoadStatistics) -> EndpointStatistics {
        switch self {
        case .endpoint(let endpoint): statistics[endpoint]
        case .http: statistics.http
        }
    }
}

/// A figure of a latency histogram.
package enum LatencyStatistic: String, Sendable, CaseIterable {
    case p50
    case p90
    case p99
    case p999 = "p99.9"
    case max
    case mean
    case min

    /// The key in the JSON report's `latencyMs`, where a dot would read as a path: `p99_9`.
    package var jsonKey: String { self == .p999 ? "p99_9" : rawValue }

    /// The value in nanoseconds, nil when the histogram is empty: a latency of no requests is not 0.
    package func nanoseconds(in histogram: LatencyHistogram) -> Double? {
        guard histogram.count > 0 else { return nil }
        return switch self {
        case .p50: Double(histogram.value(atPercentile: 50))
        case .p90: Double(histogram.value(atPercentile: 90))
        case .p99: Double(histogram.value(atPercentile: 99))
        case .p999: Double(histogram.value(atPercentile: 99.9))
        case .max: Double(histogram.max)
        case .mean: histogram.mean
        case .min: Double(histogram.min)
        }
    }
}

/// A count or rate of one scope's requests.
package enum RequestStatistic: String, Sendable, CaseIterable {
    /// Attempts per second over the run.
    case rps
    /// Attempts.
    case count
    /// Failed attempts: no status, or a status of 400 or more.
    case errors
    /// Failed attempts over attempts, 0 to 1; 0 when there were none.
    case errorRate = "error_rate"
}

/// A figure of the run as a whole, named in full.
package enum RunStatistic: String, Sendable, CaseIterable {
    case retries = "retries.count"
    case droppedCount = "dropped.count"
    /// Dropped visits over scheduled visits, 0 to 1.
    case droppedRate = "dropped.rate"
    case eventsAcknowledged = "events.acknowledged"
    /// Acknowledged events per second over the run.
    case eventsAcknowledgedRate = "events.acknowledged_rate"
    case eventsAbandoned = "events.abandoned"
    /// Events refused one by one in a 200 answer, with a field and a reason (contract §7).
    case eventsRejected = "events.rejected"
    /// Events still waiting or in flight when the run stopped waiting.
    case eventsUnsent = "events.unsent"
    /// Events answered 200 without the contract's counts.
    case eventsUnconfirmed = "events.unconfirmed"
    /// Configurations and grants that did not verify: the same figures as the report's warnings, for a
    /// pipeline that must fail on them.
    case configsRejected = "configs.rejected"
    case grantsRejected = "grants.rejected"
    case verifyLost = "verify.lost"
    case verifyUnacknowledged = "verify.unacknowledged"
    case verifyDoubled = "verify.doubled"
    case verifyViolations = "verify.violations"

    /// The `verify.*` figures exist only when the run checked what the server stored.
    package var needsVerification: Bool { rawValue.hasPrefix("verify.") }
}

/// How a threshold compares the measured figure (left) with its value (right).
package enum ThresholdComparison: String, Sendable, CaseIterable {
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case equal = "=="

    package func holds(_ measured: Double, _ limit: Double) -> Bool {
        switch self {
        case .less: measured < limit
        case .lessOrEqual: measured <= limit
        case .greater: measured > limit
        case .greaterOrEqual: measured >= limit
        case .equal: measured == limit
        }
    }

    /// The characters comparisons are made of, to find where one starts and to catch a second one.
    static let characters: Set<Character> = ["<", ">", "=", "!"]
}

/// The unit of a latency threshold's value. Required: `10` alone could be nanoseconds or seconds.
package enum LatencyUnit: String, Sendable, CaseIterable {
    case us
    case ms
    case s

    /// `µs` is read as `us`, since the text report prints it.
    package init?(text: some StringProtocol) {
        self.init(rawValue: text == "µs" ? "us" : String(text))
    }

    package var nanoseconds: Double {
        switch self {
        case .us: 1_000
        case .ms: 1_000_000
        case .s: 1_000_000_000
        }
    }
}
