/// The settings a run was made with, as the report repeats them (the JSON report's `run` object), so that two
/// reports can be compared knowing what each measured. Holds no secret: neither the secret key nor the admin
/// token is part of it, and `url` is shown without any user information it carries.
package struct LoadRunDescription: Sendable, Equatable {
    /// The base URL of the service under test, as given.
    package var url: String
    package var workspace: String
    package var installs: Int
    /// Visits per second, fleet-wide, once the ramp is over.
    package var rate: Double
    /// Visits per second at the start of the ramp.
    package var rampFrom: Double
    /// 0 when there is no ramp.
    package var rampSeconds: Double
    package var durationSeconds: Double
    /// The seed that makes installs, visits and jitter reproducible, drawn or given.
    package var seed: UInt64
    package var batchSize: Int
    package var batchAgeSeconds: Double
    package var maxInFlight: Int
    package var gzip: Bool
    /// `--offline F:D`: the share of installs that go offline once, and for how long; 0 and 0 when off.
    package var offlineShare: Double
    package var offlineSeconds: Double
    /// The prefix of the run's install and event ids (`--run-tag`, or drawn): what finds the run's events on
    /// the server afterwards. Nil when the caller does not say; then the report does not mention it.
    package var runTag: String?
    /// The grona-mock version that ran the load.
    package var version: String

    package init(
        url: String, workspace: String, installs: Int, rate: Double, rampFrom: Double = 0, rampSeconds: Double = 0,
        durationSeconds: Double, seed: UInt64, batchSize: Int = 50, batchAgeSeconds: Double = 2,
        maxInFlight: Int = 256, gzip: Bool = true, offlineShare: Double = 0, offlineSeconds: Double = 0,
        runTag: String? = nil, version: String
    ) {
        self.url = url
        self.workspace = workspace
        self.installs = installs
        self.rate = rate
        self.rampFrom = rampFrom
        self.rampSeconds = rampSeconds
        self.durationSeconds = durationSeconds
        self.seed = seed
        self.batchSize = batchSize
        self.batchAgeSeconds = batchAgeSeconds
        self.maxInFlight = maxInFlight
        self.gzip = gzip
        self.offlineShare = offlineShare
        self.offlineSeconds = offlineSeconds
        self.runTag = runTag
        self.version = version
    }

    /// `url` with any `user:password@` replaced by `***@`: a URL may carry credentials, and a report is pasted
    /// into tickets and CI logs.
    package var displayURL: String {
        guard let schemeEnd = url.firstRange(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return url }
        return String(url[..<schemeEnd.upperBound]) + "***" + String(rest[at...])
    }
}

extension LoadRunDescription {
    /// Visits per second the schedule asks for `seconds` into the run: a straight line from `rampFrom` to `rate`
    /// over `rampSeconds`, then `rate`.
    package func targetRate(atSeconds seconds: Double) -> Double {
        guard rampSeconds > 0, seconds.isFinite, seconds < rampSeconds else { return rate }
        return rampFrom + (rate - rampFrom) * max(seconds, 0) / rampSeconds
    }

    /// The schedule's mean rate from `start` to `end` seconds into the run: the visits it makes due in that
    /// time over the time. On a ramp this is the rate at the middle of the interval, not at its end, so that
    /// a fleet that keeps to the schedule reads "20.0/s of 20.0" rather than always short; past `--duration`
    /// the schedule makes nothing due. For the progress line's "of 20".
    package func averageTargetRate(from start: Double, to end: Double) -> Double {
        guard start.isFinite, end.isFinite, end > start else { return targetRate(atSeconds: end) }
        return (visitsDue(by: end) - visitsDue(by: start)) / (end - start)
    }

    /// The schedule's visits due by `seconds` (the integral of its rate), as a real number; the engine's
    /// `ArrivalSchedule` counts whole visits.
    private func visitsDue(by seconds: Double) -> Double {
        let t = min(max(seconds, 0), max(durationSeconds, 0))
        guard rampSeconds > 0 else { return rate * t }
        if t < rampSeconds { return rampFrom * t + (rate - rampFrom) * t * t / (2 * rampSeconds) }
        return (rampFrom + rate) / 2 * rampSeconds + rate * (t - rampSeconds)
    }
}
