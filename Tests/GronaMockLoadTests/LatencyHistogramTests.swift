import Testing

@testable import GronaMockLoad

@Suite struct LatencyHistogramTests {
    @Test func emptyHistogramAnswersZero() {
        let histogram = LatencyHistogram()
        #expect(histogram.count == 0)
        #expect(histogram.value(atPercentile: 99) == 0)
        #expect(histogram.mean == 0)
    }

    /// 1..10,000 µs: each percentile within three significant digits of the exact order statistic.
    @Test func percentilesHoldThreeSignificantDigits() {
        var histogram = LatencyHistogram()
        for micros in 1...10_000 { histogram.record(nanoseconds: UInt64(micros) * 1_000) }
        for percentile in [50.0, 90, 99, 99.9] {
            let exact = Double(percentile / 100 * 10_000) * 1_000
            let reported = Double(histogram.value(atPercentile: percentile))
            #expect(abs(reported - exact) / exact < 0.002, "p\(percentile): \(reported) vs \(exact)")
        }
        #expect(histogram.value(atPercentile: 100) == 10_000_000)
        #expect(histogram.min == 1_000)
        #expect(histogram.max == 10_000_000)
    }

    /// One stall among a million fast answers is the maximum and p99.9 sees the slow tail it makes.
    @Test func aLongStallIsNotLost() {
        var histogram = LatencyHistogram()
        for _ in 0..<999_000 { histogram.record(nanoseconds: 500_000) }
        for _ in 0..<1_000 { histogram.record(nanoseconds: 2_000_000_000) }
        #expect(histogram.value(atPercentile: 99) < 501_000)
        #expect(histogram.value(atPercentile: 99.95) >= 1_998_000_000)
        #expect(histogram.max == 2_000_000_000)
    }

    @Test func valuesPastAnHourCountAsTheMaximum() {
        var histogram = LatencyHistogram()
        histogram.record(nanoseconds: .max)
        histogram.record(nanoseconds: 0)
        #expect(histogram.count == 2)
        #expect(histogram.max == .max)
        #expect(histogram.value(atPercentile: 100) == .max)
        // The lowest counter holds 0 to 1,023 ns; a value is reported as the top of its counter.
        #expect(histogram.value(atPercentile: 50) < 1_024)
    }

    @Test func mergingEqualsRecordingIntoOne() {
        var whole = LatencyHistogram()
        var left = LatencyHistogram()
        var right = LatencyHistogram()
        var state: UInt64 = 42
        for index in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let value = (state >> 20) % 5_000_000_000
            whole.record(nanoseconds: value)
            if index.isMultiple(of: 3) { left.record(nanoseconds: value) } else { right.record(nanoseconds: value) }
        }
        left.merge(right)
        #expect(left == whole)
    }
}
