/// A high-dynamic-range histogram of latencies in nanoseconds, after Gil Tene's HdrHistogram: three
/// significant digits from 1 µs to one hour in a fixed 188 KiB of counters, so that p99.9 and the maximum of a
/// long run are as exact as its median, recording is one array increment, and two histograms merge by adding
/// their counters (one per connection or per interval, merged for the report).
///
/// Values are counted in units of 1,024 ns (the "unit magnitude" 10). Each power-of-two bucket is split into
/// 2,048 sub-buckets, of which the lower half overlaps the bucket below, as in HdrHistogram's layout; a value
/// is reported as the highest value equivalent to it at that precision, capped at the exact maximum seen.
package struct LatencyHistogram: Sendable, Equatable {
    /// log2 of the unit: 1,024 ns, a resolution of about 1 µs.
    private static let unitMagnitude = 10
    /// Sub-buckets per bucket: 2 × 10^3 rounded up to a power of two, for three significant digits.
    private static let subBucketCount = 2048
    private static let subBucketHalfCountMagnitude = 10
    private static let subBucketHalfCount = 1024
    private static let subBucketMask = UInt64(subBucketCount - 1) << UInt64(unitMagnitude)
    /// The highest value tracked exactly: one hour. Longer values count as one hour (and as the maximum).
    package static let highestTrackable: UInt64 = 3_600_000_000_000
    private static let bucketCount: Int = {
        var smallestUntrackable = UInt64(subBucketCount) << UInt64(unitMagnitude)
        var buckets = 1
        while smallestUntrackable <= highestTrackable {
            smallestUntrackable <<= 1
            buckets += 1
        }
        return buckets
    }()
    static let countsLength = (bucketCount + 1) * subBucketHalfCount

    /// Internal for `LatencyHistogram+Codec.swift`, which writes and reads them losslessly.
    private(set) var counts: [UInt64]
    /// Values recorded.
    package private(set) var count: UInt64 = 0
    /// The exact extremes, in nanoseconds (0 when empty).
    package private(set) var min: UInt64 = 0
    package private(set) var max: UInt64 = 0
    /// The sum of the values recorded, for the mean; wraps only past 584 years of latency.
    private(set) var sum: UInt64 = 0

    package init() {
        counts = Array(repeating: 0, count: Self.countsLength)
    }

    /// A histogram as written, already checked by the caller (`init(json:)`): `counts` of `countsLength`.
    init(checkedCounts counts: [UInt64], count: UInt64, min: UInt64, max: UInt64, sum: UInt64) {
        self.counts = counts
        self.count = count
        self.min = min
        self.max = max
        self.sum = sum
    }

    /// The mean in nanoseconds (0 when empty).
    package var mean: Double { count == 0 ? 0 : Double(sum) / Double(count) }

    /// Records one latency.
    package mutating func record(nanoseconds value: UInt64) {
        let clamped = Swift.min(value, Self.highestTrackable)
        counts[Self.index(of: clamped)] &+= 1
        if count == 0 || value < min { min = value }
        if value > max { max = value }
        count &+= 1
        sum &+= clamped
    }

    /// Adds another histogram's values to this one.
    package mutating func merge(_ other: LatencyHistogram) {
        guard other.count > 0 else { return }
        for index in counts.indices where other.counts[index] != 0 {
            counts[index] &+= other.counts[index]
        }
        if count == 0 || other.min < min { min = other.min }
        max = Swift.max(max, other.max)
        count &+= other.count
        sum &+= other.sum
    }

    /// The value below which `percentile` percent of the values fall (0 to 100; 100 is the maximum), in
    /// nanoseconds: the highest value equivalent to the recorded one at three significant digits, never above
    /// the maximum seen. 0 when empty.
    package func value(atPercentile percentile: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        let bounded = percentile.isNaN ? 100 : Swift.min(Swift.max(percentile, 0), 100)
        if bounded == 100 { return max }
        let wanted = Swift.max(1, UInt64((bounded / 100 * Double(count)).rounded(.up)))
        var seen: UInt64 = 0
        for index in counts.indices where counts[index] != 0 {
            seen &+= counts[index]
            if seen >= wanted {
                return Swift.max(Swift.min(Self.highestEquivalent(Self.value(at: index)), max), min)
            }
        }
        return max
    }

    /// The counter of a value: its bucket (the power of two above its top sub-bucket bits) and sub-bucket.
    private static func index(of value: UInt64) -> Int {
        let leadingZeroCountBase = 64 - unitMagnitude - subBucketHalfCountMagnitude - 1
        let bucket = leadingZeroCountBase - (value | subBucketMask).leadingZeroBitCount
        let subBucket = Int(value >> UInt64(bucket + unitMagnitude))
        return ((bucket + 1) << subBucketHalfCountMagnitude) + (subBucket - subBucketHalfCount)
    }

    /// The lowest value a counter stands for.
    private static func value(at index: Int) -> UInt64 {
        var bucket = (index >> subBucketHalfCountMagnitude) - 1
        var subBucket = (index & (subBucketHalfCount - 1)) + subBucketHalfCount
        if bucket < 0 {
            subBucket -= subBucketHalfCount
            bucket = 0
        }
        return UInt64(subBucket) << UInt64(bucket + unitMagnitude)
    }

    /// The highest value that counts in the same counter as `value`.
    private static func highestEquivalent(_ value: UInt64) -> UInt64 {
        let leadingZeroCountBase = 64 - unitMagnitude - subBucketHalfCountMagnitude - 1
        let bucket = leadingZeroCountBase - (value | subBucketMask).leadingZeroBitCount
        let subBucket = Int(value >> UInt64(bucket + unitMagnitude))
        let adjustedBucket = subBucket >= subBucketCount ? bucket + 1 : bucket
        let range = UInt64(1) << UInt64(unitMagnitude + adjustedBucket)
        let lowest = UInt64(subBucket) << UInt64(bucket + unitMagnitude)
        return lowest + range - 1
    }
}
