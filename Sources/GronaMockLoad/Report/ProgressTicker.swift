/// What the command needs to drive the progress line from the engine's snapshots (one about every second):
/// it keeps the previous snapshot and says, for each new one, whether a line is due in this mode and which.
/// It writes nothing; the caller writes the string to standard error.
package struct ProgressTicker: Sendable {
    package let mode: ProgressMode
    package let run: LoadRunDescription
    private var previous = LoadStatistics()
    private var previousSeconds = 0.0
    /// The latencies of the snapshots since the last line: the engine hands each second's, and a plain line
    /// covers five of them.
    private var pendingLatency: LatencyHistogram?

    /// A snapshot this much early still counts as on time, so that a tick at 4.98 s is not skipped for 5 s.
    private static let slackSeconds = 0.1

    package init(mode: ProgressMode, run: LoadRunDescription) {
        self.mode = mode
        self.run = run
    }

    /// The text to write for the engine's snapshot, or nil when no line is due yet (or the mode is off).
    package mutating func text(for progress: LoadProgress) -> String? {
        text(
            for: progress.statistics, elapsedSeconds: progress.elapsedSeconds, inFlight: progress.inFlight,
            queued: progress.queued, draining: progress.draining, intervalLatency: progress.intervalLatency)
    }

    /// The text to write for the snapshot `statistics` taken `elapsedSeconds` into the run, or nil when no line
    /// is due yet (or the mode is off). `intervalLatency` is the engine's histogram of the requests that ended
    /// since its last snapshot, if it keeps one (see `ProgressLine`); those of snapshots that gave no line are
    /// kept for the next one. `queued` counts requests waiting behind the in-flight cap; `draining` says
    /// `--duration` is over.
    package mutating func text(
        for statistics: LoadStatistics, elapsedSeconds: Double, inFlight: Int, queued: Int = 0,
        draining: Bool = false, intervalLatency: LatencyHistogram? = nil
    ) -> String? {
        guard let interval = mode.intervalSeconds, elapsedSeconds.isFinite else { return nil }
        if let intervalLatency {
            pendingLatency = pendingLatency.map { $0.merging(intervalLatency) } ?? intervalLatency
        }
        guard elapsedSeconds - previousSeconds >= interval - Self.slackSeconds else { return nil }
        let line = ProgressLine(
            previous: previous, current: statistics, intervalSeconds: elapsedSeconds - previousSeconds,
            elapsedSeconds: elapsedSeconds, durationSeconds: run.durationSeconds,
            targetRate: run.averageTargetRate(from: previousSeconds, to: elapsedSeconds), inFlight: inFlight,
            queued: queued, draining: draining, intervalLatency: pendingLatency)
        previous = statistics
        previousSeconds = elapsedSeconds
        pendingLatency = nil
        return line.rendered(for: mode)
    }
}

extension LatencyHistogram {
    fileprivate func merging(_ other: LatencyHistogram) -> LatencyHistogram {
        var merged = self
        merged.merge(other)
        return merged
    }
}
