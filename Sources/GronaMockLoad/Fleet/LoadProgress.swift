/// A snapshot of a run in progress, handed to the command about once a second for its progress line.
package struct LoadProgress: Sendable {
    /// Everything counted so far.
    package var statistics: LoadStatistics
    /// Seconds since the first visit was due.
    package var elapsedSeconds: Double
    /// Requests sent and not yet answered (at most `--max-in-flight`).
    package var inFlight: Int
    /// Requests waiting for a connection behind the cap.
    package var queued: Int = 0
    /// Past `--duration`: no visit starts; the last batches are being sent and answered.
    package var draining = false
    /// The latencies of the attempts that ended since the previous snapshot, every endpoint together.
    package var intervalLatency: LatencyHistogram
}
