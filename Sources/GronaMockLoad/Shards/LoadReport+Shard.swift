import GronaMockJSON

/// What a shard's report says of its shard, in the text and in the JSON (`shard`, and `exact`: the statistics
/// and the ledger a merge reads back, `ShardReport`).
extension LoadReport {
    /// The format of the `exact` section; a merge refuses another.
    package static let exactVersion = 1

    /// `  shard 1/3: installs 34 to 66 of 100` for a shard, `  merged from 3 shards` for a merge.
    var shardLine: String? {
        if let shard {
            return "  shard \(shard.label): installs \(shard.firstInstall) to "
                + "\(shard.firstInstall + shard.installs - 1) of \(shard.fleetInstalls)"
        }
        if let replay {
            let span = Double(replay.lastTimestamp - replay.firstTimestamp) / 1000
            return "  replay of \(ReportFormat.printable(replay.path)): \(replay.events) events of "
                + "\(replay.installIDs.count) installs, \(ReportFormat.plain(span))s of the file's time at speed "
                + "\(ReportFormat.plain(replay.speed))"
                + (replay.badLines > 0 ? ", \(replay.badLines) bad lines skipped" : "")
        }
        return mergedShards > 0 ? "  merged from \(mergedShards) shard reports" : nil
    }

    func setShardSections(in object: inout JSONObject) {
        if let shard {
            object.set(
                "shard",
                [
                    "index": .number(JSONNumber(shard.index)), "count": .number(JSONNumber(shard.count)),
                    "firstInstall": .number(JSONNumber(shard.firstInstall)),
                    "installs": .number(JSONNumber(shard.installs)),
                    "fleetInstalls": .number(JSONNumber(shard.fleetInstalls)),
                ])
        } else {
            object.set("shard", .null)
        }
        if mergedShards > 0 { object.set("mergedShards", .number(JSONNumber(mergedShards))) }
        if let replay {
            object.set(
                "replay",
                [
                    "file": .string(replay.path), "events": .number(JSONNumber(replay.events)),
                    "installs": .number(JSONNumber(replay.installIDs.count)), "speed": Self.exact(replay.speed),
                    "badLines": .number(JSONNumber(replay.badLines)),
                ])
        }
        if let ledger {
            object.set(
                "exact",
                [
                    "version": .number(JSONNumber(Self.exactVersion)),
                    "elapsedSeconds": Self.exact(elapsedSeconds),
                    // The shard's rates unrounded, so that the merged run's add up to the fleet's.
                    "rate": Self.exact(run.rate), "rampFrom": Self.exact(run.rampFrom),
                    "statistics": statistics.exactJSON,
                    "events": ledger.json,
                ])
        }
    }
}
