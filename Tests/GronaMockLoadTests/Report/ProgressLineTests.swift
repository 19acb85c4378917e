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
                status: index < 3 ? 503 : 200, latencyNanoseconds: UInt64(index + 1) * 100_000, startLagNanoseconds: 0,
                answerLagNanoseconds: 0, isRetry: false)
        }
        return ProgressLine(
            previous: previous, current: current, intervalSeconds: 1, elapsedSeconds: 12, durationSeconds: 60,
            targetRate: 20, inFlight: inFlight, intervalLatency: interval)
    }

    @Test func plainLineHasEveryFigure() {
        let line = second().rendered(for: .plain)
        #expect(
            line == "12s/1m00s  visits 20.0/s of 20.0 over 1s  events 300/s  in flight 14  errors 3  "
                + "p50(run) 5.00ms  p99(run) 9.90ms\n")
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
        #expect(second(dropped: 7).rendered(for: .plain).contains("over 1s  dropped 7  events"))
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
        let fitted = second().fitted(width: 31)
        #expect(fitted == "visits 20.0/s of 20.0  errors 3")
        #expect(second().fitted(width: 5).count == 5)
        #expect(second().fitted(width: -1) == "")
    }

    @Test func countsThatWentBackwardAreNoRate() {
        let line = ProgressLine(
            previous: statistics(scale: 10), current: LoadStatistics(), intervalSeconds: 0, elapsedSeconds: 0,
            durationSeconds: 0, targetRate: .nan, inFlight: -3)
        #expect(line.rendered(for: .plain).hasPrefix("0s/0s  visits 0.0/s of - over 0s  events 0.0/s  in flight 0"))
    }

    /// On a terminal a line a second needs no "over"; the plain line says how long its rates are over.
    @Test func theTerminalLineLeavesOutTheInterval() {
        #expect(second().fitted(width: 200).hasPrefix("12s/1m00s  visits 20.0/s of 20.0  events 300/s"))
    }

    /// Requests waiting behind the cap show beside those in flight, only when there are some.
    @Test func queuedRequestsShowWhenThereAreSome() {
        var line = second(inFlight: 256)
        #expect(!line.rendered(for: .plain).contains("queued"))
        line.queued = 80
        #expect(line.rendered(for: .plain).contains("  in flight 256  queued 80  errors 3  "))
        #expect(line.rendered(for: .terminal).contains("queued 80"))
    }

    /// After --duration no visit starts: the line says draining, not a visit rate of 0 against the schedule.
    @Test func afterTheDurationTheLineSaysDraining() {
        var line = second(visits: 0, events: 50)
        line.elapsedSeconds = 63
        line.draining = true
        line.queued = 4
        let plain = line.rendered(for: .plain)
        #expect(plain.hasPrefix("1m03s/1m00s  draining  events 50.0/s  in flight 14  queued 4  errors 3  "))
        #expect(!plain.contains("visits"))
        #expect(line.fitted(width: 20) == "draining  errors 3")
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
        one.record(
            status: 500, latencyNanoseconds: 1_000, startLagNanoseconds: 0, answerLagNanoseconds: 0, isRetry: false)
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
