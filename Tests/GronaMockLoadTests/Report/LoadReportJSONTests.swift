import GronaMockJSON
import Testing

@testable import GronaMockLoad

/// The `--json` report read back with the project's strict parser: every key of the design, numbers as numbers.
@Suite struct LoadReportJSONTests {
    private func parsed(_ report: LoadReport) throws -> JSONValue {
        try JSONParser().parse(report.jsonText)
    }

    @Test func topLevelKeysInTheDesignsOrder() throws {
        let json = try parsed(ReportFixtures.report())
        #expect(
            json.objectValue?.keys == [
                "run", "elapsedSeconds", "interrupted", "visits", "events", "endpoints", "http", "configs", "grants",
                "verify", "thresholds", "warnings", "passed", "shard",
            ])
        #expect(json["endpoints"]?.objectValue?.keys == ["config", "grants", "events"])
        #expect(
            json["run"]?.objectValue?.keys == [
                "url", "workspace", "installs", "rate", "rampFrom", "rampSeconds", "durationSeconds", "seed",
                "batchSize", "batchAgeSeconds", "maxInFlight", "gzip", "offlineShare", "offlineSeconds", "runTag",
                "version",
            ])
        #expect(
            json["events"]?.objectValue?.keys == [
                "logged", "acknowledged", "accepted", "duplicate", "rejected", "abandoned", "unsent", "unconfirmed",
                "perSecond",
            ])
    }

    @Test func runFiguresAreNumbersAndTheURLHidesItsCredentials() throws {
        let run = try #require(try parsed(ReportFixtures.report())["run"])
        #expect(run["url"] == "http://***@127.0.0.1:8080/base")
        #expect(run["installs"]?.int64Value == 100)
        #expect(run["rate"]?.doubleValue == 100)
        #expect(run["rampSeconds"]?.doubleValue == 2.5)
        // UInt64.max does not fit Int64; the number keeps every digit.
        #expect(run["seed"]?.numberValue?.text == "18446744073709551615")
        #expect(run["gzip"] == .bool(true))
        #expect(run["version"] == "1.2.3")
        #expect(run["offlineShare"]?.doubleValue == 0)
        #expect(run["offlineSeconds"]?.doubleValue == 0)
        #expect(run["runTag"] == .null)
    }

    @Test func offlineRunTagAndInterruption() throws {
        var run = ReportFixtures.run
        run.offlineShare = 0.25
        run.offlineSeconds = 1.5
        run.runTag = "ci-42"
        var statistics = ReportFixtures.statistics
        statistics.interrupted = true
        statistics.eventsUnconfirmed = 7
        let json = try parsed(LoadReport(run: run, statistics: statistics, elapsedSeconds: 3))
        #expect(json["run"]?["offlineShare"]?.doubleValue == 0.25)
        #expect(json["run"]?["offlineSeconds"]?.doubleValue == 1.5)
        #expect(json["run"]?["runTag"] == "ci-42")
        #expect(json["interrupted"] == .bool(true))
        #expect(json["events"]?["unconfirmed"]?.int64Value == 7)
        let codes = json["warnings"]?.arrayValue?.compactMap { $0["code"]?.stringValue }
        #expect(codes == ["events_abandoned", "events_unsent", "events_unconfirmed", "interrupted"])
        #expect(try parsed(ReportFixtures.report())["interrupted"] == .bool(false))
    }

    @Test func countsAndRates() throws {
        let json = try parsed(ReportFixtures.report())
        #expect(json["elapsedSeconds"]?.doubleValue == 10)
        #expect(json["visits"]?["scheduled"]?.int64Value == 1_000)
        #expect(json["visits"]?["dropped"]?.int64Value == 10)
        let events = try #require(json["events"])
        let expected: [String: Int64] = [
            "logged": 5_000, "acknowledged": 4_900, "accepted": 4_800, "duplicate": 90, "rejected": 10,
            "abandoned": 50, "unsent": 50,
        ]
        for (key, value) in expected { #expect(events[key]?.int64Value == value, "\(key)") }
        #expect(events["perSecond"]?.doubleValue == 490)
        #expect(json["configs"]?["verified"]?.int64Value == 90)
        #expect(json["grants"]?["rejected"]?.int64Value == 0)
    }

    @Test func endpointFigures() throws {
        let json = try parsed(ReportFixtures.report())
        let events = try #require(json["endpoints"]?["events"])
        #expect(events["requests"]?.int64Value == 200)
        #expect(events["perSecond"]?.doubleValue == 20)
        #expect(events["errors"]?.int64Value == 10)
        #expect(events["retries"]?.int64Value == 5)
        #expect(events["statuses"]?.objectValue?.keys == ["200", "429"])
        #expect(events["statuses"]?["200"]?.int64Value == 190)
        #expect(events["statuses"]?["429"]?.int64Value == 5)
        #expect(
            events["failures"]?.objectValue?.keys == [
                "connect", "closed", "timeout", "malformed", "answer_too_large", "tls_unknown_ca", "tls_name_mismatch",
                "tls_certificate", "tls_handshake",
            ])
        #expect(events["failures"]?["closed"]?.int64Value == 3)
        #expect(events["failures"]?["timeout"]?.int64Value == 2)
        let latency = try #require(events["latencyMs"])
        #expect(latency.objectValue?.keys == ["p50", "p90", "p99", "p99_9", "max", "mean", "min"])
        let p99 = try #require(latency["p99"]?.doubleValue)
        #expect(abs(p99 - 19.8) < 0.02)
        #expect(latency["max"]?.doubleValue == 20)
        #expect(latency["min"]?.doubleValue == 0.1)
        // The generator's own lag, from the same intended starts: a tenth of each latency here.
        let lag = try #require(events["startLagMs"])
        #expect(lag.objectValue?.keys == ["p50", "p99", "max"])
        let lagP99 = try #require(lag["p99"]?.doubleValue)
        #expect(abs(lagP99 - 1.98) < 0.01)
        #expect(lag["max"]?.doubleValue == 2)
        // And the part each answer waited before it was read: a twentieth of each latency here.
        let answer = try #require(events["answerLagMs"])
        #expect(answer.objectValue?.keys == ["p50", "p99", "max"])
        let answerP99 = try #require(answer["p99"]?.doubleValue)
        #expect(abs(answerP99 - 0.99) < 0.01)
        #expect(answer["max"]?.doubleValue == 1)
        let http = try #require(json["http"])
        #expect(http["requests"]?.int64Value == 300)
        #expect(http["statuses"]?["304"]?.int64Value == 10)
        #expect(http["latencyMs"]?["max"]?.doubleValue == 20)
    }

    /// No grants were requested: counts 0, latencies null (not a made-up 0).
    @Test func anEndpointWithoutRequests() throws {
        let grants = try #require(try parsed(ReportFixtures.report())["endpoints"]?["grants"])
        #expect(grants["requests"]?.int64Value == 0)
        #expect(grants["perSecond"]?.doubleValue == 0)
        #expect(grants["statuses"] == [:])
        for key in ["p50", "p99_9", "max", "mean", "min"] { #expect(grants["latencyMs"]?[key] == .null) }
        for key in ["p50", "p99", "max"] {
            #expect(grants["startLagMs"]?[key] == .null)
            #expect(grants["answerLagMs"]?[key] == .null)
        }
    }

    @Test func verificationAndThresholds() throws {
        let json = try parsed(
            ReportFixtures.report(
                thresholds: ["errors.rate<0.1", "events.p99 < 19ms", "grants.p99<1s"],
                verification: ReportFixtures.verification))
        let verify = try #require(json["verify"])
        #expect(verify["passed"] == .bool(false))
        #expect(verify["lost"]?.int64Value == 1)
        #expect(verify["stored"]?.int64Value == 4_899)
        #expect(verify["sampleLost"] == ["ev-lost-1"])
        #expect(verify["sampleUnacknowledged"] == [])
        #expect(verify["sampleViolations"]?[0]?.stringValue == "event_id_reused: \u{1B}[31mred\u{1B}[0m")
        let thresholds = try #require(json["thresholds"]?.arrayValue)
        #expect(thresholds.count == 3)
        #expect(thresholds[0]["expression"] == "errors.rate<0.1")
        #expect(thresholds[0]["value"]?.doubleValue == 10.0 / 300)
        #expect(thresholds[0]["passed"] == .bool(true))
        #expect(thresholds[1]["expression"] == "events.p99 < 19ms")
        #expect(thresholds[1]["passed"] == .bool(false))
        #expect(thresholds[2]["value"] == .null)
        #expect(json["passed"] == .bool(false))
    }

    @Test func unacknowledgedSampleAtMostTen() throws {
        let verification = LoadVerification(
            stored: 12, unacknowledged: 12, sampleUnacknowledged: (1...12).map { "ev-\($0)" })
        let json = try parsed(ReportFixtures.report(verification: verification))
        let sample = try #require(json["verify"]?["sampleUnacknowledged"]?.arrayValue)
        #expect(sample.compactMap(\.stringValue) == (1...10).map { "ev-\($0)" })
        #expect(json["verify"]?["unacknowledged"]?.int64Value == 12)
    }

    @Test func withoutVerifyIsNullAndAPassingRunSaysSo() throws {
        let json = try parsed(ReportFixtures.report(thresholds: ["events.p99<1s"]))
        #expect(json["verify"] == .null)
        #expect(json["passed"] == .bool(true))
        #expect(try ReportFixtures.report().jsonText.hasSuffix("}\n"))
    }
}
