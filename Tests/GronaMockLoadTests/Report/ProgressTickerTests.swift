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
        // 500 visits in the first 4.98 s; 500 more in the next 5.04 s.
        #expect(plain[0].hasPrefix("4s/10s  visits 100/s of 100  "))
        #expect(plain[1].hasPrefix("10s/10s  visits 99.2/s of 100  "))
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
        var ticker = ProgressTicker(mode: .terminal, run: run)
        #expect(ticker.text(for: snapshot(visits: 30), elapsedSeconds: 1, inFlight: 0)?.contains("of 46") == true)
    }
}
