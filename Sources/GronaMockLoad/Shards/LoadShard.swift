/// One shard of a fleet that several generators drive together (`--shard I/N`, or a Kubernetes Indexed Job's
/// `JOB_COMPLETION_INDEX` with `--shards N`): the slice of the fleet's installs this process simulates, so that
/// N processes with the same options make one run between them, with disjoint install and event ids.
///
/// Installs are split as evenly as whole numbers allow: each shard gets `installs / N`, and the first
/// `installs % N` shards one more, in index order, so shard `I` owns the contiguous range starting at
/// `I * (installs / N) + min(I, installs % N)`. Its ids are those of that range (`load-<tag>-<global index>`,
/// `<tag>-<global index>-<counter>`), so shards that share a run tag never collide, and the merged run reads as
/// one run of the whole fleet. The rate (and the ramp's start) is split exactly: `rate / N` each.
package struct LoadShard: Sendable, Equatable {
    /// 0-based, below `count`.
    package let index: Int
    package let count: Int
    /// The fleet's installs, all shards together.
    package let fleetInstalls: Int

    /// The whole fleet in one process: shard 0 of 1.
    package static func whole(installs: Int) -> LoadShard {
        LoadShard(uncheckedIndex: 0, count: 1, fleetInstalls: installs)
    }

    /// A mistake in a shard's description, said as a sentence that names where it came from.
    package struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        package let description: String
    }

    /// The most shards a fleet may be split into.
    package static let maximumCount = 10_000

    /// Checks that `index` and `count` describe a shard of a fleet of `fleetInstalls`: `source` names the
    /// option or variable in a refusal.
    package init(index: Int, count: Int, fleetInstalls: Int, source: String) throws(Invalid) {
        guard (1...Self.maximumCount).contains(count) else {
            throw Invalid(
                description: "\(source): the number of shards must be 1 to \(Self.maximumCount), not \(count)")
        }
        guard (0..<count).contains(index) else {
            throw Invalid(
                description: "\(source): the shard index is 0-based and must be below \(count), not \(index)")
        }
        guard fleetInstalls >= count else {
            throw Invalid(
                description: "\(source): \(count) shards need at least \(count) installs (one each), not "
                    + "--installs \(fleetInstalls)")
        }
        self.init(uncheckedIndex: index, count: count, fleetInstalls: fleetInstalls)
    }

    private init(uncheckedIndex index: Int, count: Int, fleetInstalls: Int) {
        self.index = index
        self.count = count
        self.fleetInstalls = fleetInstalls
    }

    /// `I/N` as `--shard` takes it: two whole numbers, 0 ≤ I < N.
    package static func parse(_ text: String, fleetInstalls: Int) throws(Invalid) -> LoadShard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Self.number(parts[0]), let count = Self.number(parts[1]) else {
            throw Invalid(description: "--shard must be I/N, a 0-based index and a total such as 0/3, not \"\(text)\"")
        }
        return try LoadShard(index: index, count: count, fleetInstalls: fleetInstalls, source: "--shard \(text)")
    }

    /// Digits only (no sign, no space), at most six of them: an index or a count, never a huge number that
    /// would overflow.
    package static func number(_ text: Substring) -> Int? {
        guard (1...6).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        return Int(text)
    }

    /// The first install of this shard, as an index into the whole fleet.
    package var firstInstall: Int {
        let (base, extra) = fleetInstalls.quotientAndRemainder(dividingBy: count)
        return index * base + min(index, extra)
    }

    /// This shard's installs.
    package var installs: Int {
        let (base, extra) = fleetInstalls.quotientAndRemainder(dividingBy: count)
        return base + (index < extra ? 1 : 0)
    }

    /// This shard's part of a fleet-wide rate.
    package func share(ofRate rate: Double) -> Double { rate / Double(count) }

    package var isWhole: Bool { count == 1 }

    /// `1/3` as the reports print it.
    package var label: String { "\(index)/\(count)" }
}
