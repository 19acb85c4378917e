import GronaMockTLSCore

/// Everything a load run is told (the options of `grona-mock load`, see docs/load-testing.md), parsed and
/// checked by the command line. Report options (`--json`, `--threshold`, `--quiet`) are kept here too, for the
/// report that runs after the engine.
package struct LoadSettings: Sendable {
    /// `http://host:port` or `https://host:port`, no path.
    package var host = "127.0.0.1"
    package var port = 8080
    /// For an `https://` target: TLS 1.2 or 1.3, the server verified against the system trust store or the CA
    /// file of `--cacert` (`TLSClientContext`). Nil for `http://`.
    package var tls: TLSClientContext?
    package var workspace = "acme-market"
    package var installs = 100
    package var rate = 20.0
    package var rampFrom = 0.0
    package var ramp: Duration = .zero
    package var duration: Duration = .seconds(10)
    package var seed: UInt64 = 0
    package var batchSize = 50
    package var batchAge: Duration = .seconds(2)
    package var maxInFlight = 256
    package var timeout: Duration = .seconds(10)
    package var maxRetries = 5
    package var retryBase: Duration = .milliseconds(250)
    /// Share of installs with a customer id.
    package var identified = 0.5
    /// The workspace's secret key, for grants; never printed.
    package var secretKey: String?
    /// Share of installs that go offline once, and for how long.
    package var offlineShare = 0.0
    package var offlineDuration: Duration = .zero
    package var gzip = true
    package var verify = false
    /// For `--verify`'s `/_mock` calls; never printed.
    package var adminToken: String?
    package var jsonPath: String?
    package var thresholds: [String] = []
    package var quiet = false
    /// The prefix of the run's install and event ids (`load-<runTag>-<n>`, `<runTag>-<n>-<counter>`): drawn
    /// afresh for each run (so that two runs with one seed do not collide on a server that keeps both), or
    /// given with `--run-tag` so that a run can be repeated id for id against a fresh server.
    package var runTag = "run"
    /// How long to wait for answers and retries after the last visit, at most (`--drain`).
    package var drainLimit: Duration = .seconds(30)
    /// How long an interrupted run (Ctrl-C) sends what is pending and waits for answers, at most.
    package var interruptDrainLimit: Duration = .seconds(3)

    /// `--shard I/N` (or `JOB_COMPLETION_INDEX` with `--shards N`): the slice of the fleet this process runs;
    /// `installs` and `rate` are then already the shard's own (`applying(_:)`). Nil for the whole fleet.
    package var shard: LoadShard?
    /// `--replay FILE`: the file's events, already read through once, instead of simulated visits.
    package var replay: ReplayPlan?

    package init() {}

    /// The target as printed: an IPv6 address bracketed (RFC 3986 §3.2.2), as it must be typed.
    package var url: String {
        let scheme = tls == nil ? "http" : "https"
        return host.contains(":") ? "\(scheme)://[\(host)]:\(port)" : "\(scheme)://\(host):\(port)"
    }

    package var schedule: ArrivalSchedule {
        ArrivalSchedule(
            rate: rate, rampFrom: rampFrom, rampSeconds: ramp.seconds, durationSeconds: duration.seconds)
    }
}

extension Duration {
    /// Seconds as a Double.
    package var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}
