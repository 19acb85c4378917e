import GronaMockJSON
import Testing

@testable import GronaMockLoad

/// `grona-mock load merge`: shards' reports, written as `--json` and read back, add up to the whole run; a
/// duplicated or missing shard, or a report of another run, is refused with the file named.
@Suite struct ShardMergeTests {
    /// Shard `index` of 3 of a fleet of 10: install `i` logged `i + 2` events, acknowledged all but its last,
    /// the first rejected; events latencies of (install + 1) ms.
    static func report(_ index: Int, tag: String = "merge-test", count: Int = 3) throws -> JSONValue {
        let shard = try LoadShard(index: index, count: count, fleetInstalls: 10, source: "test")
        var statistics = LoadStatistics()
        var acknowledged = AcknowledgedEvents(installs: shard.installs)
        var rejected = RejectedEvents()
        var logged: [UInt32] = []
        for install in 0..<shard.installs {
            let fleetInstall = shard.firstInstall + install
            logged.append(UInt32(fleetInstall + 2))
            acknowledged.record(install: install, first: 0, count: fleetInstall + 1)
            rejected.insert(install: install, counter: 0)
            statistics[.events].record(
                status: 200, latencyNanoseconds: UInt64(fleetInstall + 1) * 1_000_000, startLagNanoseconds: 0,
                answerLagNanoseconds: 0, isRetry: false)
            statistics.eventsLogged += fleetInstall + 2
            statistics.eventsAcknowledged += fleetInstall + 1
        }
        let run = LoadRunDescription(
            url: "http://127.0.0.1:1", workspace: "acme-market", installs: shard.installs, rate: 10.0 / 3,
            durationSeconds: 5, seed: 9, runTag: tag, version: "test")
        let result = LoadRunResult(
            statistics: statistics, elapsedSeconds: 5, acknowledged: acknowledged, rejectedEvents: rejected,
            loggedPerInstall: logged, runTag: tag, seed: 9, startedAtUnixMilliseconds: 1_000_000 + Int64(index) * 500)
        var report = LoadReport(run: run, statistics: statistics, elapsedSeconds: 5)
        report.shard = shard
        report.ledger = RunLedger(firstInstall: shard.firstInstall, result: result)
        return try JSONParser().parse(Array(report.jsonText.utf8))
    }

    static func merge(_ reports: [(String, JSONValue)]) throws -> ShardMerge {
        try ShardMerge(reports.map { try ShardReport(json: $0.1, source: $0.0) })
    }

    @Test func threeShardsAddUpToTheWholeRun() throws {
        let merge = try Self.merge(try (0..<3).map { ("shard-\($0).json", try Self.report($0)) })
        var whole = LatencyHistogram()
        for install in 0..<10 { whole.record(nanoseconds: UInt64(install + 1) * 1_000_000) }
        #expect(merge.statistics[.events].latency == whole)
        #expect(merge.statistics.eventsLogged == (2...11).reduce(0, +))
        #expect(merge.run.installs == 10)
        #expect(abs(merge.run.rate - 10) < 1e-9)
        // From the first shard's start to the last one's end: 1 s later, 5 s long.
        #expect(merge.elapsedSeconds == 6)
        #expect(merge.result.loggedPerInstall == (0..<10).map { UInt32($0 + 2) })
        #expect(merge.result.acknowledged.count == (1...10).reduce(0, +))
        #expect(merge.result.acknowledged.contains(install: 9, counter: 9))
        #expect(!merge.result.acknowledged.contains(install: 9, counter: 10))
        #expect(merge.result.rejectedEvents.contains(install: 7, counter: 0))
        let report = merge.report(evaluating: [try Threshold(parsing: "events.p99<5ms", verifyEnabled: false)])
        #expect(report.verdict == .thresholdBroken)
        #expect(report.text.contains("merged from 3 shard reports"))
    }

    @Test func aDuplicatedShardIsRefusedNamingBothFiles() throws {
        let reports = [("a.json", try Self.report(0)), ("b.json", try Self.report(1)), ("c.json", try Self.report(1))]
        #expect(throws: ShardMerge.Refusal("b.json and c.json are both shard 1/3")) { try Self.merge(reports) }
    }

    @Test func aMissingShardIsRefused() throws {
        let reports = [("a.json", try Self.report(0)), ("c.json", try Self.report(2))]
        #expect(throws: ShardMerge.Refusal("shard 1/3 of run merge-test is missing: give every shard's report")) {
            try Self.merge(reports)
        }
    }

    @Test func aReportOfAnotherRunIsRefused() throws {
        let reports = [
            ("a.json", try Self.report(0)), ("b.json", try Self.report(1, tag: "other")),
            ("c.json", try Self.report(2)),
        ]
        #expect(throws: ShardMerge.Refusal("b.json is not of the same run as a.json: run tag other, not merge-test")) {
            try Self.merge(reports)
        }
    }

    @Test func aReportWithoutAShardIsNotMerged() throws {
        let report = LoadReport(
            run: LoadRunDescription(
                url: "http://x:1", workspace: "w", installs: 1, rate: 1, durationSeconds: 1, seed: 1, version: "t"),
            statistics: LoadStatistics(), elapsedSeconds: 1)
        let json = try JSONParser().parse(Array(report.jsonText.utf8))
        #expect(throws: ReportFormatError.self) { try ShardReport(json: json, source: "whole.json") }
    }
}
