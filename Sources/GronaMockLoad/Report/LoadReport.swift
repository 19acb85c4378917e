/// The end of a load run: what was asked, what was counted, what `--verify` found and how each threshold
/// fared. Rendered as text for people (`text`) and as JSON for tools (`json`, `--json FILE`).
package struct LoadReport: Sendable, Equatable {
    package var run: LoadRunDescription
    package var statistics: LoadStatistics
    /// From the first visit's intended start to the last answer awaited; 0 or more.
    package var elapsedSeconds: Double
    /// Nil without `--verify`.
    package var verification: LoadVerification?
    package var thresholds: [ThresholdResult]
    /// The shard this report is of (`--shard`), nil for a whole fleet or a merge.
    package var shard: LoadShard?
    /// For a shard: what a merge needs to verify the whole run (`RunLedger`), written in the JSON report.
    package var ledger: RunLedger?
    /// For a merge: how many shards' reports it adds up (0 otherwise).
    package var mergedShards = 0
    /// For `--replay`: the file replayed.
    package var replay: ReplayPlan?

    /// How the run ended, for the exit status: a failed verification outranks a broken threshold.
    package enum Verdict: Sendable, Equatable {
        case passed
        /// At least one threshold broken (exit status 99).
        case thresholdBroken
        /// `--verify` found lost, doubled or unacknowledged-but-stored events, or violations (exit status 98).
        case verificationFailed

        package var exitStatus: Int32 {
            switch self {
            case .passed: 0
            case .thresholdBroken: 99
            case .verificationFailed: 98
            }
        }
    }

    package init(
        run: LoadRunDescription, statistics: LoadStatistics, elapsedSeconds: Double,
        verification: LoadVerification? = nil, thresholds: [ThresholdResult] = []
    ) {
        self.run = run
        self.statistics = statistics
        self.elapsedSeconds = elapsedSeconds.isFinite ? max(elapsedSeconds, 0) : 0
        self.verification = verification
        self.thresholds = thresholds
    }

    /// The report with `thresholds` measured against it.
    package init(
        run: LoadRunDescription, statistics: LoadStatistics, elapsedSeconds: Double,
        verification: LoadVerification? = nil, evaluating thresholds: [Threshold]
    ) {
        self.init(run: run, statistics: statistics, elapsedSeconds: elapsedSeconds, verification: verification)
        self.thresholds = thresholds.map { $0.evaluate(against: self) }
    }

    package var verdict: Verdict {
        if verification?.passed == false { return .verificationFailed }
        if thresholds.contains(where: { !$0.passed }) { return .thresholdBroken }
        return .passed
    }

    package var passed: Bool { verdict == .passed }

    /// `count` over the elapsed time; 0 when no time elapsed.
    package func perSecond(_ count: Int) -> Double {
        ReportFormat.perSecond(count, seconds: elapsedSeconds)
    }
}
