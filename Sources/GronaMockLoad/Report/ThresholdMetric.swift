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

    /// Every metric's name, aliases included.
    package static var allNames: [String] {
        var names = aliases.keys.sorted() + RunStatistic.allCases.map(\.rawValue)
        for scope in LoadScope.allCases {
            names += LatencyStatistic.allCases.map { "\(scope.name).\($0.rawValue)" }
            names += RequestStatistic.allCases.map { "\(scope.name).\($0.rawValue)" }
        }
        return names
    }

    /// The metrics `name` was most likely meant to be (`config.rejected` gives `configs.rejected`, `EVENTS.P99`
    /// `events.p99`, `events.p95` both `events.p90` and `events.p99`): the closest names within two edits,
    /// ignoring case, joined by "or"; nil when none is that close or the name is too long to be a typo of one.
    package static func suggestion(for name: String) -> String? {
        let typed = Array(name.lowercased())
        guard typed.count <= 64 else { return nil }
        let distances = allNames.map { (name: $0, distance: editDistance(typed, Array($0))) }
        guard let closest = distances.map(\.distance).min(), closest <= 2 else { return nil }
        return distances.filter { $0.distance == closest }.prefix(3).map(\.name).joined(separator: " or ")
    }

    /// Levenshtein distance, one row at a time.
    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
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
