import GronaMockJSON

/// A run's statistics as a shard's `--json` report carries them for a merge: every count exact and every
/// histogram whole (`LatencyHistogram+Codec.swift`), unlike the report's figures, which are rounded for people.
extension LoadStatistics {
    /// The run's counts, by the key each has in the report.
    static var countKeys: [(String, WritableKeyPath<LoadStatistics, Int>)] {
        [
            ("visitsScheduled", \.visitsScheduled), ("visitsStarted", \.visitsStarted),
            ("visitsDropped", \.visitsDropped), ("eventsLogged", \.eventsLogged),
            ("eventsAcknowledged", \.eventsAcknowledged), ("eventsAccepted", \.eventsAccepted),
            ("eventsDuplicate", \.eventsDuplicate), ("eventsRejected", \.eventsRejected),
            ("eventsUnconfirmed", \.eventsUnconfirmed), ("eventsAbandoned", \.eventsAbandoned),
            ("eventsUnsent", \.eventsUnsent), ("answersWaitedForMemory", \.answersWaitedForMemory),
            ("configsVerified", \.configsVerified), ("configsRejected", \.configsRejected),
            ("grantsVerified", \.grantsVerified), ("grantsRejected", \.grantsRejected),
        ]
    }

    package var exactJSON: JSONValue {
        var object = JSONObject()
        for (key, path) in Self.countKeys { object.set(key, .number(JSONNumber(self[keyPath: path]))) }
        object.set("interrupted", .bool(interrupted))
        var endpoints = JSONObject()
        for endpoint in LoadEndpoint.allCases { endpoints.set(endpoint.rawValue, self[endpoint].exactJSON) }
        object.set("endpoints", .object(endpoints))
        return .object(object)
    }

    package init(exactJSON json: JSONValue) throws(ReportFormatError) {
        self.init()
        for (key, path) in Self.countKeys { self[keyPath: path] = try Self.count(json[key], "statistics.\(key)") }
        guard let interrupted = json["interrupted"]?.boolValue else {
            throw ReportFormatError("statistics.interrupted is not true or false")
        }
        self.interrupted = interrupted
        for endpoint in LoadEndpoint.allCases {
            guard let value = json["endpoints"]?[endpoint.rawValue] else {
                throw ReportFormatError("statistics.endpoints has no \(endpoint.rawValue)")
            }
            self[endpoint] = try EndpointStatistics(exactJSON: value, name: endpoint.rawValue)
        }
    }

    /// Adds another shard's statistics: counts summed, histograms added, interrupted if either was.
    package mutating func merge(_ other: LoadStatistics) {
        for (_, path) in Self.countKeys { self[keyPath: path] += other[keyPath: path] }
        interrupted = interrupted || other.interrupted
        for endpoint in LoadEndpoint.allCases {
            endpoints[endpoint, default: EndpointStatistics()].merge(other[endpoint])
        }
    }

    /// A count: a whole number from 0 to 2^53 (what every JSON reader keeps exactly).
    static func count(_ value: JSONValue?, _ name: String) throws(ReportFormatError) -> Int {
        guard let number = value?.int64Value, (0...9_007_199_254_740_992).contains(number) else {
            throw ReportFormatError("\(name) is not a count (a whole number from 0)")
        }
        return Int(number)
    }
}

extension EndpointStatistics {
    var exactJSON: JSONValue {
        var statusCounts = JSONObject()
        for (status, count) in statuses.sorted(by: { $0.key < $1.key }) {
            statusCounts.set(String(status), .number(JSONNumber(count)))
        }
        var failureCounts = JSONObject()
        for (failure, count) in failures.sorted(by: { $0.key < $1.key }) {
            failureCounts.set(failure.rawValue, .number(JSONNumber(count)))
        }
        return [
            "requests": .number(JSONNumber(requests)), "retries": .number(JSONNumber(retries)),
            "statuses": .object(statusCounts), "failures": .object(failureCounts), "latency": latency.json,
            "startLag": startLag.json, "answerLag": answerLag.json,
        ]
    }

    init(exactJSON json: JSONValue, name: String) throws(ReportFormatError) {
        let prefix = "statistics.endpoints.\(name)"
        var statuses: [Int: Int] = [:]
        for (key, value) in json["statuses"]?.objectValue?.members ?? [] {
            guard let status = Int(key), (100...999).contains(status) else {
                throw ReportFormatError("\(prefix).statuses has \"\(key)\", not an HTTP status")
            }
            statuses[status] = try LoadStatistics.count(value, "\(prefix).statuses.\(key)")
        }
        var failures: [TransportFailure: Int] = [:]
        for (key, value) in json["failures"]?.objectValue?.members ?? [] {
            guard let failure = TransportFailure(rawValue: key) else {
                throw ReportFormatError("\(prefix).failures has \"\(key)\", not a transport failure")
            }
            failures[failure] = try LoadStatistics.count(value, "\(prefix).failures.\(key)")
        }
        func histogram(_ key: String) throws(ReportFormatError) -> LatencyHistogram {
            do {
                return try LatencyHistogram(json: json[key] ?? .null)
            } catch {
                throw ReportFormatError("\(prefix).\(key): \(error)")
            }
        }
        self.init(
            requests: try LoadStatistics.count(json["requests"], "\(prefix).requests"), statuses: statuses,
            failures: failures, retries: try LoadStatistics.count(json["retries"], "\(prefix).retries"),
            latency: try histogram("latency"), startLag: try histogram("startLag"),
            answerLag: try histogram("answerLag"))
    }
}
