import Testing

@testable import GronaMockPlatform

/// Durations from callers become whole units without trapping, whatever their size.
@Suite("Duration conversions")
struct DurationConversionTests {
    @Test("milliseconds round towards zero and saturate at the ends of Int64")
    func milliseconds() {
        #expect(Duration.milliseconds(1500).milliseconds == 1500)
        #expect(Duration.microseconds(2999).milliseconds == 2)
        #expect(Duration.seconds(Int64.max).milliseconds == .max)
        #expect(Duration.seconds(Int64.min).milliseconds == .min)
    }

    @Test("nanoseconds saturate, and a negative duration is zero")
    func nanoseconds() {
        #expect(Duration.seconds(Int64.max).nanoseconds == .max)
        #expect(Duration.seconds(-5).nanoseconds == 0)
        #expect(Duration.milliseconds(3).nanoseconds == 3_000_000)
    }
}
