import GronaMockJSON

/// One shard's `--json` report read back for `grona-mock load merge`: what the shard ran, its exact statistics
/// and its ledger. Everything is checked as it is read, and a refusal names the part at fault.
package struct ShardReport: Sendable {
    /// The file it was read from, for messages.
    package var source: String
    package var run: LoadRunDescription
    package var shard: LoadShard
    package var statistics: LoadStatistics
    package var elapsedSeconds: Double
    package var ledger: RunLedger

    package init(json: JSONValue, source: String) throws(ReportFormatError) {
        self.source = source
        guard json.objectValue != nil, let runJSON = json["run"], runJSON.objectValue != nil else {
            throw ReportFormatError("not a grona-mock load --json report (no run object)")
        }
        guard let shardJSON = json["shard"], !shardJSON.isNull else {
            throw ReportFormatError("the report of a run without --shard (its \"shard\" is null or absent)")
        }
        guard let exact = json["exact"], exact.objectValue != nil else {
            throw ReportFormatError("the report carries no \"exact\" section (written by an older grona-mock?)")
        }
        guard exact["version"]?.int64Value == Int64(LoadReport.exactVersion) else {
            throw ReportFormatError(
                "the \"exact\" section is of version \(exact["version"] ?? .null); this grona-mock reads version "
                    + "\(LoadReport.exactVersion)")
        }
        let index = try LoadStatistics.count(shardJSON["index"], "shard.index")
        let count = try LoadStatistics.count(shardJSON["count"], "shard.count")
        let fleet = try LoadStatistics.count(shardJSON["fleetInstalls"], "shard.fleetInstalls")
        do {
            shard = try LoadShard(index: index, count: count, fleetInstalls: fleet, source: "shard")
        } catch {
            throw ReportFormatError("\(error)")
        }
        guard shardJSON["firstInstall"]?.int64Value == Int64(shard.firstInstall),
            shardJSON["installs"]?.int64Value == Int64(shard.installs)
        else {
            throw ReportFormatError("shard \(shard.label) does not hold the installs its index gives")
        }
        run = try Self.description(runJSON, exact: exact)
        statistics = try LoadStatistics(exactJSON: exact["statistics"] ?? .null)
        guard let elapsed = exact["elapsedSeconds"]?.doubleValue, elapsed.isFinite, elapsed >= 0 else {
            throw ReportFormatError("exact.elapsedSeconds is not a number of seconds")
        }
        elapsedSeconds = elapsed
        ledger = try RunLedger(json: exact["events"] ?? .null, installs: shard.installs)
        guard ledger.firstInstall == shard.firstInstall else {
            throw ReportFormatError("exact.events.firstInstall is not shard \(shard.label)'s first install")
        }
    }

    /// The `run` object (`LoadRunDescription.json`), with the rates from `exact`.
    private static func description(_ run: JSONValue, exact: JSONValue) throws(ReportFormatError)
        -> LoadRunDescription
    {
        func number(_ key: String, _ from: JSONValue = run) throws(ReportFormatError) -> Double {
            guard let value = from[key]?.doubleValue, value.isFinite, value >= 0 else {
                throw ReportFormatError("run.\(key) is not a number from 0")
            }
            return value
        }
        guard let url = run["url"]?.stringValue, let workspace = run["workspace"]?.stringValue,
            let seed = run["seed"]?.numberValue?.uint64, let gzip = run["gzip"]?.boolValue,
            let version = run["version"]?.stringValue
        else {
            throw ReportFormatError("run needs url, workspace, seed, gzip and version")
        }
        guard let tag = run["runTag"]?.stringValue, (try? LoadSettings.runTag(tag)) != nil else {
            throw ReportFormatError("run.runTag is not a run tag ([a-z0-9-]{1,16})")
        }
        return LoadRunDescription(
            url: url, workspace: workspace, installs: try LoadStatistics.count(run["installs"], "run.installs"),
            rate: try number("rate", exact), rampFrom: try number("rampFrom", exact),
            rampSeconds: try number("rampSeconds"), durationSeconds: try number("durationSeconds"), seed: seed,
            batchSize: try LoadStatistics.count(run["batchSize"], "run.batchSize"),
            batchAgeSeconds: try number("batchAgeSeconds"),
            maxInFlight: try LoadStatistics.count(run["maxInFlight"], "run.maxInFlight"), gzip: gzip,
            offlineShare: try number("offlineShare"), offlineSeconds: try number("offlineSeconds"), runTag: tag,
            version: version)
    }
}
