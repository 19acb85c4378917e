/// What the command needs to drive the progress line from the engine's snapshots (one about every second):
/// it keeps the previous snapshot and says, for each new one, whether a line is due in this mode and which.
/// It writes nothing; the caller writes the string to standard error.
package struct ProgressTicker: Sendable {
    package let mode: ProgressMode
    package let run: LoadRunDescription
    private var previous = LoadStatistics()
    private var previousSeconds = 0.0

    /// A snapshot this much early still counts as on time, so that a tick at 4.98 s is not skipped for 5 s.
    private static let slackSeconds = 0.1

    package init(mode: ProgressMode, run: LoadRunDescription) {
        self.mode = mode
        self.run = run
    }

    /// The text to write for the snapshot `statistics` taken `elapsedSeconds` into the run, or nil when no line
    /// is due yet (or the mode is off). `intervalLatency` is the engine's histogram of the requests that ended
    /// since its last snapshot, if it keeps one (see `ProgressLine`).
    package mutating func text(
        for statistics: LoadStatistics, elapsedSeconds: Double, inFlight: Int,
        intervalLatency: LatencyHistogram? = nil
    ) -> String? {
        guard let interval = mode.intervalSeconds, elapsedSeconds.isFinite,
            elapsedSeconds - previousSeconds >= interval - Self.slackSeconds
        else { return nil }
        let line = ProgressLine(
            previous: previous, current: statistics, intervalSeconds: elapsedSeconds - previousSeconds,
            elapsedSeconds: elapsedSeconds, durationSeconds: run.durationSeconds,
            targetRate: run.targetRate(atSeconds: elapsedSeconds), inFlight: inFlight,
            intervalLatency: intervalLatency)
        previous = statistics
        previousSeconds = elapsedSeconds
        return line.rendered(for: mode)
    }
}
