/// What a threshold measures: a latency figure or a request count of one scope, or a figure of the whole run.
package enum ThresholdMetric: Hashable, Sendable {
    case latency(LoadScope, LatencyStatistic)
    case requests(LoadScope, RequestStatistic)
    case run(RunStatistic)

    /// What kind of number the metric is, which decides the value's unit and range.
    package enum Kind: Sendable {
        /// Nanoseconds; the value needs a unit.
        case latency
        case count
        case perSecond
        /// 0 to 1.
        case fraction

        var noun: String {
            switch self {
            case .latency: "a latency"
            case .count: "a count"
            case .perSecond: "a rate per second"
            case .fraction: "a fraction from 0 to 1"
            }
        }
    }

    /// Shorter names for the figures most thresholds are about, as k6 has them.
    private static let aliases: [String: ThresholdMetric] = [
        "errors.rate": .requests(.http, .errorRate),
        "errors.count": .requests(.http, .errors),
    ]

    /// Reads `scope.statistic` or a run figure's full name; nil when it names none.
    package init?(name: some StringProtocol) {
        let name = String(name)
        if let alias = Self.aliases[name] {
            self = alias
        } else if let run = RunStatistic(rawValue: name) {
            self = .run(run)
        } else if let dot = name.firstIndex(of: "."), let scope = LoadScope(name: name[..<dot]) {
            let statistic = name[name.index(after: dot)...]
            if let latency = LatencyStatistic(rawValue: String(statistic)) {
                self = .latency(scope, latency)
            } else if let requests = RequestStatistic(rawValue: String(statistic)) {
                self = .requests(scope, requests)
            } else {
                return nil
            }
        } else {
            return nil
        }
    }

    package var name: String {
        switch self {
        case .latency(let scope, let statistic): "\(scope.name).\(statistic.rawValue)"
        case .requests(let scope, let statistic): "\(scope.name).\(statistic.rawValue)"
        case .run(let statistic): statistic.rawValue
        }
    }

    package var kind: Kind {
        switch self {
        case .latency: .latency
        case .requests(_, .rps), .run(.eventsAcknowledgedRate): .perSecond
        case .requests(_, .errorRate), .run(.droppedRate): .fraction
        case .requests, .run: .count
        }
    }

    package var needsVerification: Bool {
        if case .run(let statistic) = self { statistic.needsVerification } else { false }
    }

    /// Every metric there is, for error messages: the scoped ones as patterns, the others in full.
    package static var validMetrics: String {
        let scopes = LoadScope.allCases.map(\.name).joined(separator: "|")
        let latency = LatencyStatistic.allCases.map(\.rawValue).joined(separator: "|")
        let units = LatencyUnit.allCases.map(\.rawValue).joined(separator: "|")
        let requests = RequestStatistic.allCases.map(\.rawValue).joined(separator: "|")
        let run = (aliases.keys.sorted() + RunStatistic.allCases.map(\.rawValue)).joined(separator: ", ")
        return "SCOPE.\(latency) (a latency, with a unit \(units)), SCOPE.\(requests), "
            + "where SCOPE is \(scopes); \(run) (verify.* with --verify)"
    }
}
