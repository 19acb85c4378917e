/// A snapshot of a run in progress, handed to the command about once a second for its progress line.
package struct LoadProgress: Sendable {
    /// Everything counted so far.
    package var statistics: LoadStatistics
    /// Seconds since the first visit was due.
    package var elapsedSeconds: Double
    /// Requests sent and not yet answered.
    package var inFlight: Int
    /// The latencies of the attempts that ended since the previous snapshot, every endpoint together.
    package var intervalLatency: LatencyHistogram
}
