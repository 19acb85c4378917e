/// A run's settings as one shard of a fleet sees them (`LoadShard`).
extension LoadSettings {
    /// The fleet-wide index of this process's first install: 0 for the whole fleet.
    package var firstInstall: Int { shard?.firstInstall ?? 0 }

    /// The installs of the whole fleet, all shards together.
    package var fleetInstalls: Int { shard?.fleetInstalls ?? installs }

    /// The seed the engine draws from: the given one for the whole fleet, mixed with the shard's index for a
    /// shard, so that shards started with one `--seed` draw different visits (and a shard can still be repeated).
    package var engineSeed: UInt64 {
        guard let shard, !shard.isWhole else { return seed }
        return FleetRunner.derivedSeed(seed, stream: 3, index: shard.index)
    }

    /// These settings for `shard`, from the fleet-wide ones: its installs, and its part of the rate and of the
    /// ramp's start (`LoadShard`). `installs` must be the fleet's.
    package func applying(_ shard: LoadShard) -> LoadSettings {
        var settings = self
        settings.shard = shard
        settings.installs = shard.installs
        settings.rate = shard.share(ofRate: rate)
        settings.rampFrom = shard.share(ofRate: rampFrom)
        return settings
    }
}
