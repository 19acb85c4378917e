import GronaMockLoad

/// `--shard I/N`, or a Kubernetes Indexed Job's `JOB_COMPLETION_INDEX` with `--shards N` (or
/// `GRONA_MOCK_LOAD_SHARDS`): which slice of the fleet this process runs (`LoadShard`).
extension LoadCommand {
    static let shardSpecs: [OptionSpec] = [
        .value(
            "shard", "I/N",
            help: "Shard I (0-based) of N processes making one run: --installs/N, --rate/N (needs --run-tag)."),
        .value(
            "shards", "N", environment: "GRONA_MOCK_LOAD_SHARDS",
            help: "Without --shard: N shards, the index from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job)."),
    ]

    /// `settings` (fleet-wide) for the shard the options and the environment name, unchanged when none is.
    static func sharded(_ settings: LoadSettings, _ parsed: ParsedOptions, environment: [String: String])
        throws(UsageError) -> LoadSettings
    {
        let shard: LoadShard
        if let text = parsed.value("shard") {
            shard = try checked { () throws(LoadShard.Invalid) in
                try LoadShard.parse(text, fleetInstalls: settings.installs)
            }
            if let total = parsed.value("shards"), LoadShard.number(Substring(total)) != shard.count {
                throw UsageError("--shard \(text) says \(shard.count) shards, --shards (or its variable) \(total)")
            }
        } else if let index = environment["JOB_COMPLETION_INDEX"] {
            guard let total = parsed.value("shards") else {
                throw UsageError(
                    "JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job): give the number of shards with "
                        + "--shards N or GRONA_MOCK_LOAD_SHARDS, the Job's completions")
            }
            guard let number = LoadShard.number(Substring(index)), let count = LoadShard.number(Substring(total))
            else {
                throw UsageError("JOB_COMPLETION_INDEX \"\(index)\" and --shards \"\(total)\" must be whole numbers")
            }
            shard = try checked { () throws(LoadShard.Invalid) in
                try LoadShard(
                    index: number, count: count, fleetInstalls: settings.installs,
                    source: "JOB_COMPLETION_INDEX \(index) with --shards \(total)")
            }
        } else if let total = parsed.value("shards") {
            throw UsageError(
                "--shards \(total) needs this shard's index: --shard I/\(total), or JOB_COMPLETION_INDEX (which "
                    + "a Kubernetes Indexed Job sets)")
        } else {
            return settings
        }
        guard parsed.given.contains("run-tag") else {
            throw UsageError(
                "a shard needs --run-tag, the same for every shard: the shards' ids and reports make one run by it")
        }
        return settings.applying(shard)
    }

    private static func checked(_ make: () throws(LoadShard.Invalid) -> LoadShard) throws(UsageError) -> LoadShard {
        do {
            return try make()
        } catch {
            throw UsageError(error.description)
        }
    }
}
