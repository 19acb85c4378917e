import GronaMock
import Testing

@testable import GronaMockLoad

@Suite struct ArrivalScheduleTests {
    /// Constant rate: t × rate visits by t.
    @Test func aConstantRateIsItsIntegral() {
        let schedule = ArrivalSchedule(rate: 200, durationSeconds: 5)
        #expect(schedule.visitsDue(by: 0) == 0)
        #expect(schedule.visitsDue(by: 0.5) == 100)
        #expect(schedule.visitsDue(by: 5) == 1000)
        #expect(schedule.visitsDue(by: 60) == 1000)
        #expect(schedule.totalVisits == 1000)
        #expect(schedule.dueTime(ofVisit: 1) == 0.005)
        #expect(schedule.dueTime(ofVisit: 1001) == nil)
    }

    /// A ramp from 0 to 100/s over 10 s holds 500 visits (the triangle); then 100/s.
    @Test(arguments: [(2.0, 20), (5.0, 125), (10.0, 500), (11.0, 600), (20.0, 1500)])
    func aRampIsTheAreaUnderTheLine(seconds: Double, due: Int) {
        let schedule = ArrivalSchedule(rate: 100, rampFrom: 0, rampSeconds: 10, durationSeconds: 20)
        #expect(schedule.visitsDue(by: seconds) == due)
    }

    /// Every visit's due time is where the count reaches it: the inverse of the integral, on and after the ramp.
    @Test func dueTimesInvertTheCount() throws {
        let schedule = ArrivalSchedule(rate: 300, rampFrom: 50, rampSeconds: 4, durationSeconds: 8)
        for visit in stride(from: 1, through: schedule.totalVisits, by: 37) {
            let time = try #require(schedule.dueTime(ofVisit: visit))
            #expect(schedule.visitsDue(by: time) >= visit)
            #expect(schedule.visitsDue(by: time - 1e-6) < visit)
        }
    }

    /// A loop that stalls for a second finds a second's visits due, each stamped with the time it was due, so
    /// the latency of what they send counts from there (coordinated omission).
    @Test func aStalledLoopGetsEveryVisitWithItsIntendedStart() {
        let start: UInt64 = 1_000_000_000
        var clock = VisitClock(schedule: ArrivalSchedule(rate: 10, durationSeconds: 5), start: start)
        let stalledUntil = start + 1_050_000_000
        var intended: [UInt64] = []
        while let due = clock.nextVisit(now: stalledUntil) { intended.append(due) }
        #expect(intended == (1...10).map { start + UInt64($0) * 100_000_000 })
        #expect(clock.nextVisit(now: stalledUntil) == nil)
    }

    /// Retry delays: full jitter under the exponential ceiling, and never below the server's Retry-After.
    @Test func backoffIsJitteredAndHonoursRetryAfter() {
        let policy = RetryPolicy(maxRetries: 5, base: .milliseconds(100), cap: .seconds(1))
        var random = SplitMix64(seed: 42)
        for retry in 1...8 {
            let ceiling = min(UInt64(100_000_000) << UInt64(retry - 1), 1_000_000_000)
            let delay = policy.delay(beforeRetry: retry, retryAfterSeconds: nil, using: &random)
            #expect(delay <= ceiling)
            #expect(policy.delay(beforeRetry: retry, retryAfterSeconds: 3, using: &random) >= 3_000_000_000)
        }
    }

    @Test func theGeneratorIsReproducible() {
        var first = SplitMix64(seed: 7)
        var second = SplitMix64(seed: 7)
        #expect((0..<5).map { _ in first.next() } == (0..<5).map { _ in second.next() })
        // Vigna's splitmix64.c with seed 0 starts with this value.
        var zero = SplitMix64(seed: 0)
        #expect(zero.next() == 0xE220_A839_7B1D_CDAF)
    }

    @Test func acknowledgedRangesMergeAndAnswer() {
        var acknowledged = AcknowledgedEvents(installs: 2)
        acknowledged.record(install: 0, first: 0, count: 50)
        acknowledged.record(install: 0, first: 100, count: 50)
        acknowledged.record(install: 0, first: 50, count: 50)
        acknowledged.record(install: 0, first: 50, count: 50)
        acknowledged.record(install: 1, first: 10, count: 1)
        #expect(acknowledged.count == 151)
        #expect(acknowledged.contains(install: 0, counter: 149))
        #expect(!acknowledged.contains(install: 0, counter: 150))
        #expect(!acknowledged.contains(install: 1, counter: 9))
        #expect(acknowledged.contains(install: 1, counter: 10))
        #expect(!acknowledged.contains(install: 5, counter: 0))
    }
}
