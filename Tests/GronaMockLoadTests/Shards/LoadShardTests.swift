import Testing

@testable import GronaMockLoad

/// `--shard I/N`: every install of the fleet in exactly one shard, the remainder spread over the first shards,
/// the rate split exactly, and ids that never collide between shards of one run.
@Suite struct LoadShardTests {
    @Test(arguments: [(100, 3), (7, 7), (10, 4), (1_000_000, 16), (5, 1)])
    func shardsCoverTheFleetOnceEach(installs: Int, count: Int) throws {
        var next = 0
        for index in 0..<count {
            let shard = try LoadShard(index: index, count: count, fleetInstalls: installs, source: "test")
            #expect(shard.firstInstall == next, "shard \(index)/\(count)")
            #expect(shard.installs == installs / count + (index < installs % count ? 1 : 0))
            next += shard.installs
        }
        #expect(next == installs)
    }

    @Test func parsesIOverN() throws {
        let shard = try LoadShard.parse("2/3", fleetInstalls: 100)
        #expect(shard.index == 2 && shard.count == 3 && shard.firstInstall == 67 && shard.installs == 33)
    }

    @Test(arguments: ["3/3", "-1/3", "1/0", "1", "a/3", "1/3/4", " 1/3", "1/ 3", "0/10001", "99999999999/3", ""])
    func refusesWhatIsNotAShard(text: String) {
        #expect(throws: LoadShard.Invalid.self) { try LoadShard.parse(text, fleetInstalls: 100_000) }
    }

    @Test func refusesMoreShardsThanInstalls() {
        #expect(throws: LoadShard.Invalid.self) { try LoadShard.parse("0/4", fleetInstalls: 3) }
    }

    @Test func aShardRunsItsPartOfTheRateAndOfTheFleet() throws {
        var settings = LoadSettings()
        (settings.installs, settings.rate, settings.rampFrom, settings.seed) = (10, 90, 30, 5)
        let shards = try (0..<3).map { index in
            settings.applying(try LoadShard(index: index, count: 3, fleetInstalls: 10, source: "test"))
        }
        #expect(shards.map(\.installs) == [4, 3, 3])
        #expect(shards.map(\.firstInstall) == [0, 4, 7])
        #expect(shards.allSatisfy { $0.rate == 30 && $0.rampFrom == 10 && $0.fleetInstalls == 10 })
        // One --seed, three different streams of visits; the whole fleet keeps its seed as given.
        #expect(Set(shards.map(\.engineSeed)).count == 3)
        #expect(settings.engineSeed == 5)
    }

    /// Shards of one run share its tag: their install, visit and event ids are those of fleet-wide indices.
    @Test func idsOfShardsNeverCollide() throws {
        var installIDs: Set<String> = []
        var eventIDs: Set<String> = []
        for index in 0..<3 {
            let shard = try LoadShard(index: index, count: 3, fleetInstalls: 10, source: "test")
            let encoder = EventEncoder(runTag: "tag", firstInstall: shard.firstInstall)
            for install in 0..<shard.installs {
                #expect(installIDs.insert(encoder.installID(install)).inserted)
                let frame = encoder.frame(install: install, visit: 0, timestamp: 0)
                var id: [UInt8] = []
                encoder.appendEventID(install: frame.install, counter: 0, into: &id)
                #expect(eventIDs.insert(String(decoding: id, as: UTF8.self)).inserted)
            }
        }
        #expect(installIDs == Set((0..<10).map { "load-tag-\($0)" }))
        #expect(eventIDs == Set((0..<10).map { "tag-\($0)-0" }))
    }
}
