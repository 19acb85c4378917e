import Testing

@testable import GronaMockLoad

@Suite struct ProgressLineTests {
    /// One second of a run: 20 visits started, 300 events acknowledged, 3 errors so far.
    private func second(
        visits: Int = 20, events: Int = 300, dropped: Int = 0, inFlight: Int = 14, interval: LatencyHistogram? = nil
    ) -> ProgressLine {
        var previous = LoadStatistics()
        previous.visitsStarted = 100
        previous.eventsAcknowledged = 1_000
        var current = previous
        current.visitsStarted += visits
        current.eventsAcknowledged += events
        current.visitsDropped = dropped
        for index in 0..<100 {
            current[.events].record(
                status: index < 3 ? 503 : 200, latencyNanoseconds: UInt64(index + 1) * 100_000, isRetry: false)
        }
        return ProgressLine(
            previous: previous, current: current, intervalSeconds: 1, elapsedSeconds: 12, durationSeconds: 60,
            targetRate: 20, inFlight: inFlight, intervalLatency: interval)
    }

    @Test func plainLineHasEveryFigure() {
        let line = second().rendered(for: .plain)
        #expect(
            line == "12s/1m00s  visits 20.0/s of 20  events 300/s  in flight 14  errors 3  p50(run) 5.00ms  "
                + "p99(run) 9.90ms\n")
    }

    @Test func anIntervalHistogramIsUsedWhenGiven() {
        var interval = LatencyHistogram()
        interval.record(nanoseconds: 2_000_000)
        let line = second(interval: interval).rendered(for: .plain)
        #expect(line.contains("p50 2.00ms  p99 2.00ms"))
        #expect(!line.contains("(run)"))
        #expect(second(interval: LatencyHistogram()).rendered(for: .plain).contains("p50 -  p99 -"))
    }

    @Test func droppedVisitsShowOnlyWhenThereAreSome() {
        #expect(!second().rendered(for: .plain).contains("dropped"))
        #expect(second(dropped: 7).rendered(for: .plain).contains("of 20  dropped 7  events"))
    }

    @Test func onATerminalTheLineIsRewrittenInPlace() {
        let line = second().rendered(for: .terminal)
        #expect(line.hasPrefix("\r\u{1B}[2K"))
        #expect(!line.contains("\n"))
        #expect(second().rendered(for: .off) == "")
    }

    /// Large figures make the line longer than a terminal: the least useful fields go first, the visit rate and
    /// the errors stay, and the line never reaches the 80th column.
    @Test(arguments: [1, 1_000, 1_000_000_000])
    func fitsEightyColumns(scale: Int) {
        var interval = LatencyHistogram()
        interval.record(nanoseconds: UInt64(scale) * 1_000)
        let line = ProgressLine(
            previous: LoadStatistics(), current: statistics(scale: scale), intervalSeconds: 1,
            elapsedSeconds: 3_599, durationSeconds: 86_400, targetRate: Double(scale) * 1.5, inFlight: scale,
            intervalLatency: interval)
        let rendered = line.rendered(for: .terminal)
        let visible = rendered.dropFirst("\r\u{1B}[2K".count)
        #expect(visible.count < ProgressLine.columns, "\(visible)")
        #expect(visible.contains("visits \(ReportFormat.rate(Double(scale)))/s"))
        #expect(visible.contains("errors \(scale)"))
        #expect(visible.contains("dropped \(scale)"))
        #expect(!visible.contains("\u{1B}"))
    }

    @Test func aVeryNarrowWidthStillKeepsTheVisitRate() {
        let fitted = second().fitted(width: 30)
        #expect(fitted == "visits 20.0/s of 20  errors 3")
        #expect(second().fitted(width: 5).count == 5)
        #expect(second().fitted(width: -1) == "")
    }

    @Test func countsThatWentBackwardAreNoRate() {
        let line = ProgressLine(
            previous: statistics(scale: 10), current: LoadStatistics(), intervalSeconds: 0, elapsedSeconds: 0,
            durationSeconds: 0, targetRate: .nan, inFlight: -3)
        #expect(line.rendered(for: .plain).hasPrefix("0s/0s  visits 0.0/s of -  events 0.0/s  in flight 0"))
    }

    @Test(arguments: [
        (false, true, "xterm-256color" as String?, ProgressMode.terminal), (false, true, nil, .terminal),
        (false, true, "dumb", .plain), (false, false, "xterm", .plain), (true, true, "xterm", .off),
        (true, false, nil, .off),
    ])
    func modeDecision(quiet: Bool, terminal: Bool, term: String?, mode: ProgressMode) {
        #expect(ProgressMode(quiet: quiet, standardErrorIsTerminal: terminal, term: term) == mode)
    }

    @Test func modeCadence() {
        #expect(ProgressMode.terminal.intervalSeconds == 1)
        #expect(ProgressMode.plain.intervalSeconds == 5)
        #expect(ProgressMode.off.intervalSeconds == nil)
        #expect(ProgressMode.terminal.clearLine == "\r\u{1B}[2K")
        #expect(ProgressMode.plain.clearLine == "")
    }

    private func statistics(scale: Int) -> LoadStatistics {
        var statistics = LoadStatistics()
        statistics.visitsScheduled = scale * 2
        statistics.visitsStarted = scale
        statistics.visitsDropped = scale
        statistics.eventsAcknowledged = scale * 50
        statistics[.events] = failures(scale)
        return statistics
    }

    /// `count` answers 500, built by doubling so that a billion costs thirty merges.
    private func failures(_ count: Int) -> EndpointStatistics {
        var one = EndpointStatistics()
        one.record(status: 500, latencyNanoseconds: 1_000, isRetry: false)
        var total = EndpointStatistics()
        var power = one
        var remaining = count
        while remaining > 0 {
            if remaining & 1 == 1 { total.merge(power) }
            power.merge(power)
            remaining >>= 1
        }
        return total
    }
}
