import GronaMock
import GronaMockJSON
import Testing

@testable import GronaMockLoad

/// The property `grona-mock load merge` rests on: for any samples split at random among k shards, adding the k
/// histograms gives exactly the histogram of all the samples (so every percentile, the count, the extremes and
/// the mean), and a histogram written into a report and read back is the same histogram.
@Suite struct HistogramMergePropertyTests {
    static let percentiles: [Double] = [0, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100]

    /// A latency from 0 to past the histogram's hour, spread over every order of magnitude it covers.
    static func sample(_ random: inout SplitMix64) -> UInt64 {
        switch random.next() % 20 {
        case 0: return 0
        case 1: return LatencyHistogram.highestTrackable + random.next() % 1_000_000_000_000
        default:
            let magnitude = Double(random.next() % 1_300) / 100  // 10^0 to 10^13 ns
            return UInt64(pow10(magnitude) * (1 + random.unit()))
        }
    }

    static func pow10(_ exponent: Double) -> Double {
        var value = 1.0
        for _ in 0..<Int(exponent) { value *= 10 }
        return value * (1 + (exponent - exponent.rounded(.down)) * 9)
    }

    @Test func mergingRandomSplitsGivesTheWholeHistogram() {
        var random = SplitMix64(seed: 32)
        for trial in 0..<150 {
            let samples = (0..<Int(random.next() % 3_000)).map { _ in Self.sample(&random) }
            let parts = 1 + Int(random.next() % 8)
            var whole = LatencyHistogram()
            var shards = Array(repeating: LatencyHistogram(), count: parts)
            for value in samples {
                whole.record(nanoseconds: value)
                shards[Int(random.next() % UInt64(parts))].record(nanoseconds: value)
            }
            var merged = LatencyHistogram()
            for shard in shards.shuffled(using: &random) { merged.merge(shard) }
            #expect(merged.count == whole.count, "trial \(trial)")
            #expect(merged.min == whole.min, "trial \(trial)")
            #expect(merged.max == whole.max, "trial \(trial)")
            #expect(merged.mean == whole.mean, "trial \(trial)")
            for percentile in Self.percentiles {
                #expect(
                    merged.value(atPercentile: percentile) == whole.value(atPercentile: percentile),
                    "trial \(trial) p\(percentile)")
            }
            #expect(merged == whole, "trial \(trial): the counters differ")
        }
    }

    /// Through the report's text and back: the same counters, count, extremes and sum.
    @Test func aHistogramSurvivesTheReportLosslessly() throws {
        var random = SplitMix64(seed: 7)
        for trial in 0..<60 {
            var histogram = LatencyHistogram()
            for _ in 0..<Int(random.next() % 5_000) { histogram.record(nanoseconds: Self.sample(&random)) }
            let text = histogram.json.prettySerialized()
            let read = try LatencyHistogram(json: try JSONParser().parse(text))
            #expect(read == histogram, "trial \(trial)")
            #expect(read.value(atPercentile: 99.9) == histogram.value(atPercentile: 99.9))
        }
    }

    @Test func aHistogramThatDoesNotAddUpIsRefused() throws {
        var histogram = LatencyHistogram()
        histogram.record(nanoseconds: 5_000)
        histogram.record(nanoseconds: 9_000_000)
        guard case .object(var object) = histogram.json else {
            Issue.record("not an object")
            return
        }
        object.set("count", 3)
        #expect(throws: ReportFormatError.self) { try LatencyHistogram(json: .object(object)) }
        object.set("count", 2)
        object.set("counts", [-300_000, 1])
        #expect(throws: ReportFormatError.self) { try LatencyHistogram(json: .object(object)) }
        object.set("counts", [1, 0, 1])
        #expect(throws: ReportFormatError.self) { try LatencyHistogram(json: .object(object)) }
        object.set("version", 2)
        #expect(throws: ReportFormatError.self) { try LatencyHistogram(json: .object(object)) }
    }
}
