import Testing

@testable import GronaMockLoad

/// Thresholds measured against the fixture run, whose every figure is known (see `ReportFixtures`).
@Suite struct ThresholdEvaluationTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var expression: String
        /// The measured value in the threshold's terms, nil when there is none.
        var value: Double?
        var passed: Bool
        /// How close `value` must be: latencies go through the histogram's three significant digits.
        var tolerance = 0.0
        var testDescription: String { expression }
    }

    static let rows: [Row] = [
        // p50 of 0.1 ms ... 20 ms in 0.1 ms steps is 10 ms, p99 19.8 ms, max 20 ms.
        Row(expression: "events.p50<=10.1ms", value: 10, passed: true, tolerance: 0.01),
        Row(expression: "events.p50<9.9ms", value: 10, passed: false, tolerance: 0.01),
        Row(expression: "events.p99<19ms", value: 19.8, passed: false, tolerance: 0.02),
        Row(expression: "events.p99<20ms", value: 19.8, passed: true, tolerance: 0.02),
        Row(expression: "events.p99.9>19.9ms", value: 20, passed: true, tolerance: 0.02),
        Row(expression: "events.max==0.02s", value: 0.02, passed: true),
        Row(expression: "events.min==100us", value: 100, passed: true),
        Row(expression: "events.mean<10.1ms", value: 10.05, passed: true, tolerance: 0.001),
        Row(expression: "config.p99<1.01ms", value: 1, passed: true, tolerance: 0.001),
        Row(expression: "http.max<=20ms", value: 20, passed: true),
        // No grants were requested: a latency of nothing is no value and fails; its counts are 0.
        Row(expression: "grants.p99<10ms", value: nil, passed: false),
        Row(expression: "grants.p99>10ms", value: nil, passed: false),
        Row(expression: "grants.count==0", value: 0, passed: true),
        Row(expression: "grants.error_rate==0", value: 0, passed: true),
        Row(expression: "grants.rps==0", value: 0, passed: true),
        // 5 answers 429 and 5 transport failures among 200 batches; 300 requests in 10 s.
        Row(expression: "events.errors==10", value: 10, passed: true),
        Row(expression: "events.error_rate<=0.05", value: 0.05, passed: true),
        Row(expression: "errors.count<10", value: 10, passed: false),
        Row(expression: "errors.rate<0.03", value: 10.0 / 300, passed: false),
        Row(expression: "http.count==300", value: 300, passed: true),
        Row(expression: "events.rps>=20", value: 20, passed: true),
        Row(expression: "http.rps>30", value: 30, passed: false),
        Row(expression: "config.errors==0", value: 0, passed: true),
        Row(expression: "retries.count==5", value: 5, passed: true),
        Row(expression: "dropped.count>0", value: 10, passed: true),
        Row(expression: "dropped.rate<0.01", value: 0.01, passed: false),
        Row(expression: "dropped.rate<=0.01", value: 0.01, passed: true),
        Row(expression: "events.acknowledged==4900", value: 4_900, passed: true),
        Row(expression: "events.acknowledged_rate>=490", value: 490, passed: true),
        Row(expression: "events.abandoned==0", value: 50, passed: false),
        // 10 events rejected and 50 unsent; every configuration and grant verified; no unconfirmed answer.
        Row(expression: "events.rejected==10", value: 10, passed: true),
        Row(expression: "events.unsent==0", value: 50, passed: false),
        Row(expression: "events.unconfirmed==0", value: 0, passed: true),
        Row(expression: "configs.rejected==0", value: 0, passed: true),
        Row(expression: "grants.rejected>0", value: 0, passed: false),
        Row(expression: "verify.doubled==0", value: 0, passed: true),
        Row(expression: "verify.lost==0", value: 1, passed: false),
        Row(expression: "verify.unacknowledged==0", value: 0, passed: true),
        Row(expression: "verify.violations<2", value: 1, passed: true),
    ]

    @Test(arguments: rows)
    func measures(_ row: Row) throws {
        let report = try ReportFixtures.report(thresholds: [row.expression], verification: ReportFixtures.verification)
        let result = try #require(report.thresholds.first)
        #expect(result.passed == row.passed)
        if let expected = row.value {
            let value = try #require(result.value)
            #expect(abs(value - expected) <= expected * row.tolerance, "\(value) vs \(expected)")
        } else {
            #expect(result.value == nil)
        }
    }

    /// Nothing sent in no time: every rate is 0, not NaN, and thresholds on them still decide.
    @Test func ratesOfNothingAreZero() throws {
        let threshold = try Threshold(parsing: "errors.rate<0.001", verifyEnabled: false)
        let empty = LoadReport(
            run: ReportFixtures.run, statistics: LoadStatistics(), elapsedSeconds: 0, evaluating: [threshold])
        #expect(empty.thresholds.first?.value == 0)
        #expect(empty.thresholds.first?.passed == true)
        for name in ["http.rps", "dropped.rate", "events.acknowledged_rate", "config.error_rate"] {
            let metric = try #require(ThresholdMetric(name: name))
            #expect(metric.measure(in: empty) == 0, "\(name)")
        }
        let nonsense = LoadReport(
            run: ReportFixtures.run, statistics: ReportFixtures.statistics, elapsedSeconds: .nan)
        #expect(nonsense.elapsedSeconds == 0)
        #expect(ThresholdMetric.requests(.http, .rps).measure(in: nonsense) == 0)
    }

    /// A `verify.*` threshold that reached a run without a verification (the parser refuses it first) fails
    /// rather than passing on a figure nobody measured.
    @Test func aVerifyFigureWithoutVerificationFails() throws {
        let threshold = try Threshold(parsing: "verify.lost==0", verifyEnabled: true)
        let report = LoadReport(
            run: ReportFixtures.run, statistics: ReportFixtures.statistics, elapsedSeconds: 10,
            evaluating: [threshold])
        #expect(report.thresholds.first?.value == nil)
        #expect(report.thresholds.first?.passed == false)
    }

    @Test func theVerdictPutsAFailedVerificationFirst() throws {
        #expect(try ReportFixtures.report(thresholds: ["events.p99<1s"]).verdict == .passed)
        #expect(try ReportFixtures.report(thresholds: ["events.p99<1s"]).verdict.exitStatus == 0)
        let broken = try ReportFixtures.report(thresholds: ["events.p99<1ms", "events.p99<1s"])
        #expect(broken.verdict == .thresholdBroken)
        #expect(broken.verdict.exitStatus == 99)
        let both = try ReportFixtures.report(thresholds: ["events.p99<1ms"], verification: ReportFixtures.verification)
        #expect(both.verdict == .verificationFailed)
        #expect(both.verdict.exitStatus == 98)
        #expect(!both.passed)
        let clean = try ReportFixtures.report(verification: LoadVerification(acknowledged: 3, stored: 3))
        #expect(clean.passed)
    }
}
