import Testing

@testable import GronaMockLoad

@Suite struct ProgressTickerTests {
    private func snapshot(visits: Int) -> LoadStatistics {
        var statistics = LoadStatistics()
        statistics.visitsStarted = visits
        return statistics
    }

    /// Snapshots about every second: a terminal line each time, a plain line every fifth, none when quiet.
    @Test func linesFollowTheModesCadence() {
        let ticks = [1.0, 2.01, 2.99, 4.0, 4.98, 6.0, 7.0, 8.0, 9.0, 10.02]
        func lines(_ mode: ProgressMode) -> [String] {
            var ticker = ProgressTicker(mode: mode, run: ReportFixtures.run)
            return ticks.enumerated().compactMap { index, seconds in
                ticker.text(for: snapshot(visits: (index + 1) * 100), elapsedSeconds: seconds, inFlight: 1)
            }
        }
        #expect(lines(.terminal).count == 10)
        #expect(lines(.off).isEmpty)
        let plain = lines(.plain)
        #expect(plain.count == 2)
        // 500 visits in the first 4.98 s, against the 385.5 the ramp (10 to 100 over 2.5 s) made due by then;
        // 500 more in the next 5.04 s, against the 502 due by the end at 10 s.
        #expect(plain[0].hasPrefix("4s/10s  visits 100/s of 77.4 over 5s  "))
        #expect(plain[1].hasPrefix("10s/10s  visits 99.2/s of 99.6 over 5s  "))
    }

    /// The fixture ramps from 10 to 100 visits per second over 2.5 s.
    @Test func theTargetFollowsTheRamp() {
        let run = ReportFixtures.run
        #expect(run.targetRate(atSeconds: 0) == 10)
        #expect(run.targetRate(atSeconds: 1.25) == 55)
        #expect(run.targetRate(atSeconds: 2.5) == 100)
        #expect(run.targetRate(atSeconds: 60) == 100)
        #expect(run.targetRate(atSeconds: -1) == 10)
        #expect(run.targetRate(atSeconds: .nan) == 100)
        // The first second of the ramp makes 28 visits due (10 to 28 per second); its end rate, 46, is not
        // what the fleet was asked for over that second.
        #expect(run.averageTargetRate(from: 0, to: 1) == 28)
        var ticker = ProgressTicker(mode: .terminal, run: run)
        #expect(
            ticker.text(for: snapshot(visits: 28), elapsedSeconds: 1, inFlight: 0)?.contains("28.0/s of 28.0") == true)
    }

    /// A fleet that keeps to a ramp reads as keeping to it: from 0 to 100 visits/s over 10 s, 5·t² visits are
    /// due by t seconds; the fifth second holds 45 of them, where the rate at its end is 50.
    @Test func aFleetOnScheduleMatchesTheRamp() throws {
        let run = LoadRunDescription(
            url: "http://127.0.0.1:8080", workspace: "acme-market", installs: 10, rate: 100, rampSeconds: 10,
            durationSeconds: 20, seed: 1, version: "1.2.3")
        var ticker = ProgressTicker(mode: .terminal, run: run)
        var last: String?
        for second in 1...5 {
            last = ticker.text(for: snapshot(visits: 5 * second * second), elapsedSeconds: Double(second), inFlight: 0)
        }
        #expect(try #require(last).contains("visits 45.0/s of 45.0"))
        // Past the end of the run the schedule makes nothing due; an interval across the end is averaged with 0.
        #expect(run.averageTargetRate(from: 18, to: 22) == 50)
        #expect(run.averageTargetRate(from: 21, to: 22) == 0)
        #expect(run.averageTargetRate(from: 3, to: 3) == 30)
        #expect(run.averageTargetRate(from: .nan, to: 3) == 30)
    }

    /// The engine's snapshot, queue and drain included, goes through as it is.
    @Test func takesTheEnginesSnapshot() throws {
        var ticker = ProgressTicker(mode: .plain, run: ReportFixtures.run)
        var progress = LoadProgress(
            statistics: snapshot(visits: 500), elapsedSeconds: 5, inFlight: 256, intervalLatency: LatencyHistogram())
        progress.queued = 80
        let first = ticker.text(for: progress)
        let line = try #require(first)
        #expect(line.contains("in flight 256  queued 80"))
        progress.elapsedSeconds = 11
        progress.draining = true
        progress.queued = 0
        let second = ticker.text(for: progress)
        let draining = try #require(second)
        #expect(draining.hasPrefix("11s/10s  draining  "))
        #expect(!draining.contains("queued"))
    }

    /// A plain line every 5 s covers five snapshots: its percentiles are of all five seconds' requests, not
    /// only of the last second's.
    @Test func aPlainLinesLatencyCoversItsWholeInterval() throws {
        var ticker = ProgressTicker(mode: .plain, run: ReportFixtures.run)
        var line: String?
        for second in 1...5 {
            var latency = LatencyHistogram()
            latency.record(nanoseconds: UInt64(second) * 1_000_000)
            line = ticker.text(
                for: snapshot(visits: second * 100), elapsedSeconds: Double(second), inFlight: 0,
                intervalLatency: latency)
            if second < 5 { #expect(line == nil) }
        }
        let text = try #require(line)
        #expect(text.contains("p50 3.00ms  p99 5.00ms"), "\(text)")
        // The next line starts afresh.
        var latency = LatencyHistogram()
        latency.record(nanoseconds: 9_000_000)
        for second in 6...10 {
            line = ticker.text(
                for: snapshot(visits: second * 100), elapsedSeconds: Double(second), inFlight: 0,
                intervalLatency: second == 8 ? latency : LatencyHistogram())
        }
        #expect(try #require(line).contains("p50 9.00ms  p99 9.00ms"))
    }
}
