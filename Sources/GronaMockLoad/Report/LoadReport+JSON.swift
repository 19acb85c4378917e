import GronaMockJSON

/// The JSON report (`--json FILE`): the keys of the load-testing design, in a fixed order, numbers as numbers.
/// Rates per second and latencies in milliseconds are rounded to three decimals (the histogram resolves about
/// a microsecond); counts are exact; a latency of an endpoint with no requests is null, not 0.
extension LoadReport {
    package var json: JSONValue {
        let statistics = statistics
        var object = JSONObject()
        object.set("run", run.json)
        object.set("elapsedSeconds", Self.number(elapsedSeconds))
        object.set("interrupted", .bool(statistics.interrupted))
        object.set(
            "visits",
            [
                "scheduled": Self.number(statistics.visitsScheduled),
                "started": Self.number(statistics.visitsStarted),
                "dropped": Self.number(statistics.visitsDropped),
            ])
        object.set(
            "events",
            [
                "logged": Self.number(statistics.eventsLogged),
                "acknowledged": Self.number(statistics.eventsAcknowledged),
                "accepted": Self.number(statistics.eventsAccepted),
                "duplicate": Self.number(statistics.eventsDuplicate),
                "rejected": Self.number(statistics.eventsRejected),
                "abandoned": Self.number(statistics.eventsAbandoned),
                "unsent": Self.number(statistics.eventsUnsent),
                "unconfirmed": Self.number(statistics.eventsUnconfirmed),
                "perSecond": Self.number(perSecond(statistics.eventsAcknowledged)),
            ])
        var endpoints = JSONObject()
        for endpoint in LoadEndpoint.allCases {
            endpoints.set(endpoint.rawValue, json(of: statistics[endpoint]))
        }
        object.set("endpoints", .object(endpoints))
        object.set("http", json(of: statistics.http))
        object.set(
            "configs",
            ["verified": Self.number(statistics.configsVerified), "rejected": Self.number(statistics.configsRejected)])
        object.set(
            "grants",
            ["verified": Self.number(statistics.grantsVerified), "rejected": Self.number(statistics.grantsRejected)])
        object.set("verify", verification?.json ?? .null)
        object.set("thresholds", .array(thresholds.map(\.json)))
        object.set("warnings", .array(warnings.map(\.json)))
        object.set("passed", .bool(passed))
        setShardSections(in: &object)
        return .object(object)
    }

    /// The JSON report as indented text with a final newline, ready for a file or stdout.
    package var jsonText: String {
        String(decoding: json.prettySerialized(), as: UTF8.self) + "\n"
    }

    private func json(of endpoint: EndpointStatistics) -> JSONValue {
        var statuses = JSONObject()
        for (status, count) in endpoint.statuses.sorted(by: { $0.key < $1.key }) {
            statuses.set(String(status), Self.number(count))
        }
        var failures = JSONObject()
        for failure in EndpointStatistics.TransportFailure.allCases {
            failures.set(failure.rawValue, Self.number(endpoint.failures[failure] ?? 0))
        }
        var latency = JSONObject()
        for statistic in LatencyStatistic.allCases {
            let milliseconds = statistic.nanoseconds(in: endpoint.latency).map { $0 / 1_000_000 }
            latency.set(statistic.jsonKey, milliseconds.map { Self.number($0) } ?? .null)
        }
        return [
            "requests": Self.number(endpoint.requests),
            "perSecond": Self.number(perSecond(endpoint.requests)),
            "errors": Self.number(endpoint.errors),
            "retries": Self.number(endpoint.retries),
            "statuses": .object(statuses),
            "failures": .object(failures),
            "latencyMs": .object(latency),
            "startLagMs": Self.lagFigures(endpoint.startLag),
            "answerLagMs": Self.lagFigures(endpoint.answerLag),
        ]
    }

    /// The figures of each endpoint's start and answer lags, in the JSON report and the text.
    static let lagStatistics: [LatencyStatistic] = [.p50, .p99, .max]

    private static func lagFigures(_ histogram: LatencyHistogram) -> JSONValue {
        var figures = JSONObject()
        for statistic in lagStatistics {
            let milliseconds = statistic.nanoseconds(in: histogram).map { $0 / 1_000_000 }
            figures.set(statistic.jsonKey, milliseconds.map { Self.number($0) } ?? .null)
        }
        return .object(figures)
    }

    static func number(_ value: Int) -> JSONValue {
        .number(JSONNumber(value))
    }

    /// Rounded to three decimals, and written as an integer when whole (`20`, not `20.0`); a value no Double
    /// can write (never expected) is null rather than invalid JSON.
    static func number(_ value: Double) -> JSONValue {
        exact((value * 1_000).rounded() / 1_000)
    }

    /// `value` as it is: whole values below 2^53 as integers, others in Swift's shortest round-trip text.
    static func exact(_ value: Double) -> JSONValue {
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return .number(JSONNumber(Int64(value))) }
        return JSONNumber(value).map(JSONValue.number) ?? .null
    }
}

extension LoadRunDescription {
    var json: JSONValue {
        [
            "url": .string(displayURL),
            "workspace": .string(workspace),
            "installs": LoadReport.number(installs),
            "rate": LoadReport.number(rate),
            "rampFrom": LoadReport.number(rampFrom),
            "rampSeconds": LoadReport.number(rampSeconds),
            "durationSeconds": LoadReport.number(durationSeconds),
            // A seed may exceed Int64; JSON numbers have no such limit, and the text keeps every digit.
            "seed": JSONNumber(text: String(seed)).map(JSONValue.number) ?? .null,
            "batchSize": LoadReport.number(batchSize),
            "batchAgeSeconds": LoadReport.number(batchAgeSeconds),
            "maxInFlight": LoadReport.number(maxInFlight),
            "gzip": .bool(gzip),
            "offlineShare": LoadReport.number(offlineShare),
            "offlineSeconds": LoadReport.number(offlineSeconds),
            "runTag": runTag.map(JSONValue.string) ?? .null,
            "version": .string(version),
        ]
    }
}

extension LoadVerification {
    var json: JSONValue {
        [
            "passed": .bool(passed),
            "acknowledged": LoadReport.number(acknowledged),
            "stored": LoadReport.number(stored),
            "lost": LoadReport.number(lost),
            "unacknowledged": LoadReport.number(unacknowledged),
            "doubled": LoadReport.number(doubled),
            "violations": LoadReport.number(violations),
            "sampleLost": Self.sample(sampleLost),
            "sampleUnacknowledged": Self.sample(sampleUnacknowledged),
            "sampleViolations": Self.sample(sampleViolations),
        ]
    }
}

extension LoadVerification {
    private static func sample(_ texts: [String]) -> JSONValue {
        .array(texts.prefix(sampleLimit).map(JSONValue.string))
    }
}

extension LoadWarning {
    var json: JSONValue {
        ["code": .string(code.rawValue), "message": .string(message)]
    }
}

extension ThresholdResult {
    /// `value` unrounded: an error rate of 0.00024 against `<0.001` must not print as 0.
    var json: JSONValue {
        [
            "expression": .string(threshold.expression),
            "value": value.map(LoadReport.exact) ?? .null,
            "passed": .bool(passed),
        ]
    }
}
