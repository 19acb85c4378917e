@testable import GronaMockLoad

/// A run whose every figure is known: 10 seconds, 100 config fetches at 1 ms, 200 event batches at 0.1 ms to
/// 20 ms (so p50 is 10 ms and p99 19.8 ms), no grants.
enum ReportFixtures {
    static let run = LoadRunDescription(
        url: "http://user:hunter2@127.0.0.1:8080/base", workspace: "acme-market", installs: 100, rate: 100,
        rampFrom: 10, rampSeconds: 2.5, durationSeconds: 10, seed: .max, batchSize: 50, batchAgeSeconds: 2,
        maxInFlight: 256, gzip: true, version: "1.2.3")

    static var statistics: LoadStatistics {
        var statistics = LoadStatistics()
        for index in 0..<100 {
            statistics[.config].record(
                status: index < 90 ? 200 : 304, latencyNanoseconds: 1_000_000, startLagNanoseconds: 0,
                answerLagNanoseconds: 0, isRetry: false)
        }
        for index in 1...200 {
            let latency = UInt64(index) * 100_000
            // A tenth of each latency was the generator's own lag: 10 µs to 2 ms.
            let lag = latency / 10
            switch index {
            case 1...5:
                statistics[.events].record(
                    status: 429, latencyNanoseconds: latency, startLagNanoseconds: lag,
                    answerLagNanoseconds: latency / 20, isRetry: false)
            case 6...8:
                statistics[.events].record(
                    status: nil, failure: .closed, latencyNanoseconds: latency, startLagNanoseconds: lag,
                    answerLagNanoseconds: latency / 20, isRetry: true)
            case 9...10:
                statistics[.events].record(
                    status: nil, failure: .timeout, latencyNanoseconds: latency, startLagNanoseconds: lag,
                    answerLagNanoseconds: latency / 20, isRetry: true)
            default:
                statistics[.events].record(
                    status: 200, latencyNanoseconds: latency, startLagNanoseconds: lag,
                    answerLagNanoseconds: latency / 20, isRetry: false)
            }
        }
        statistics.visitsScheduled = 1_000
        statistics.visitsStarted = 990
        statistics.visitsDropped = 10
        statistics.eventsLogged = 5_000
        statistics.eventsAcknowledged = 4_900
        statistics.eventsAccepted = 4_800
        statistics.eventsDuplicate = 90
        statistics.eventsRejected = 10
        statistics.eventsAbandoned = 50
        statistics.eventsUnsent = 50
        statistics.configsVerified = 90
        statistics.grantsVerified = 0
        return statistics
    }

    static let verification = LoadVerification(
        acknowledged: 4_900, stored: 4_899, lost: 1, unacknowledged: 0, doubled: 0, violations: 1,
        sampleLost: ["ev-lost-1"], sampleViolations: ["event_id_reused: \u{1B}[31mred\u{1B}[0m"])

    static func report(
        thresholds: [String] = [], verification: LoadVerification? = nil, elapsedSeconds: Double = 10
    ) throws -> LoadReport {
        let parsed = try thresholds.map { try Threshold(parsing: $0, verifyEnabled: verification != nil) }
        return LoadReport(
            run: run, statistics: statistics, elapsedSeconds: elapsedSeconds, verification: verification,
            evaluating: parsed)
    }
}
