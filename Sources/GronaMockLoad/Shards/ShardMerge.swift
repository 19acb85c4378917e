/// `grona-mock load merge`: the reports of a sharded run's shards added up into the report of the whole run.
/// Counts are summed and histograms added counter by counter, so the merged percentiles are those one
/// generator would have measured with the same samples; the run's span is from the first shard's start to the
/// last one's end. Reports of different runs, a shard given twice, or a shard missing are refused: a merge of
/// the wrong files would pass for a run that never was.
package struct ShardMerge: Sendable {
    package let run: LoadRunDescription
    package let shards: Int
    package let statistics: LoadStatistics
    package let elapsedSeconds: Double
    /// The whole run's events, for `--verify` (`RunVerifier`), with installs numbered across the fleet.
    package let result: LoadRunResult

    /// Why the reports cannot be merged, naming the file at fault where one is.
    package struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        package let description: String
        package init(_ description: String) { self.description = description }
    }

    package init(_ reports: [ShardReport]) throws(Refusal) {
        guard let first = reports.first else { throw Refusal("no report to merge") }
        let count = first.shard.count
        var byIndex: [Int: ShardReport] = [:]
        for report in reports {
            let differences = Self.differences(report, first)
            guard differences.isEmpty else {
                throw Refusal(
                    "\(report.source) is not of the same run as \(first.source): "
                        + differences.joined(separator: ", "))
            }
            if let earlier = byIndex[report.shard.index] {
                throw Refusal("\(earlier.source) and \(report.source) are both shard \(report.shard.label)")
            }
            byIndex[report.shard.index] = report
        }
        let missing = (0..<count).filter { byIndex[$0] == nil }
        guard missing.isEmpty else {
            let names = missing.prefix(10).map { "\($0)/\(count)" }.joined(separator: ", ")
            throw Refusal(
                "shard\(missing.count == 1 ? "" : "s") \(names)\(missing.count > 10 ? ", …" : "") of run "
                    + "\(first.run.runTag ?? "?") \(missing.count == 1 ? "is" : "are") missing: give every "
                    + "shard's report")
        }
        let ordered = (0..<count).compactMap { byIndex[$0] }
        var statistics = LoadStatistics()
        let fleet = first.shard.fleetInstalls
        var acknowledged = AcknowledgedEvents(installs: fleet)
        var rejected = RejectedEvents()
        var logged = Array(repeating: UInt32(0), count: fleet)
        var run = first.run
        (run.installs, run.rate, run.rampFrom, run.maxInFlight) = (fleet, 0, 0, 0)
        for report in ordered {
            statistics.merge(report.statistics)
            run.rate += report.run.rate
            run.rampFrom += report.run.rampFrom
            run.maxInFlight += report.run.maxInFlight
            let base = report.ledger.firstInstall
            for (install, count) in report.ledger.logged.enumerated() { logged[base + install] = count }
            report.ledger.acknowledged.forEachRange { install, range in
                acknowledged.record(install: base + install, first: range.lowerBound, count: range.count)
            }
            for (install, counter) in report.ledger.rejected.sorted {
                rejected.insert(install: base + install, counter: counter)
            }
        }
        let start = ordered.map(\.ledger.startedAtUnixMilliseconds).min() ?? 0
        let end = ordered.map { Double($0.ledger.startedAtUnixMilliseconds - start) / 1000 + $0.elapsedSeconds }.max()
        self.run = run
        shards = count
        self.statistics = statistics
        elapsedSeconds = end ?? 0
        result = LoadRunResult(
            statistics: statistics, elapsedSeconds: elapsedSeconds, acknowledged: acknowledged,
            rejectedEvents: rejected, loggedPerInstall: logged, runTag: first.run.runTag ?? "", seed: first.run.seed,
            startedAtUnixMilliseconds: start)
    }

    /// What tells `report` apart from `first` as a run: its tag, workspace, shard count and fleet.
    private static func differences(_ report: ShardReport, _ first: ShardReport) -> [String] {
        var differences: [String] = []
        if report.run.runTag != first.run.runTag {
            differences.append("run tag \(report.run.runTag ?? "none"), not \(first.run.runTag ?? "none")")
        }
        if report.run.workspace != first.run.workspace {
            differences.append("workspace \(report.run.workspace), not \(first.run.workspace)")
        }
        if report.shard.count != first.shard.count {
            differences.append("\(report.shard.count) shards, not \(first.shard.count)")
        }
        if report.shard.fleetInstalls != first.shard.fleetInstalls {
            differences.append("a fleet of \(report.shard.fleetInstalls) installs, not \(first.shard.fleetInstalls)")
        }
        return differences
    }

    /// The merged run's report, with `thresholds` measured against it and `verification` if one was made.
    package func report(verification: LoadVerification? = nil, evaluating thresholds: [Threshold]) -> LoadReport {
        var report = LoadReport(
            run: run, statistics: statistics, elapsedSeconds: elapsedSeconds, verification: verification,
            evaluating: [])
        report.mergedShards = shards
        report.thresholds = thresholds.map { $0.evaluate(against: report) }
        return report
    }
}
