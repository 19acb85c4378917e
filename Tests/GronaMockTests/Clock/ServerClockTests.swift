import Testing

@testable import GronaMock

/// The mock's clock in process: each change as a test author would combine them.
@Suite("Server clock")
struct ServerClockTests {
    /// One hour, the offset the tests set.
    private let hour: Int64 = 3_600_000

    @Test("unfreezing with an offset runs the clock at that offset, not from where it stood")
    func unfreezeWithOffset() throws {
        let clock = ServerClock()
        try clock.apply(ClockChange(freeze: true, freezeAt: 1_000_000))
        try clock.apply(ClockChange(offsetMilliseconds: hour, freeze: false))
        let snapshot = clock.snapshot()
        #expect(!snapshot.frozen)
        #expect(snapshot.offsetMilliseconds == hour)
        let expected = ServerClock.wallMilliseconds() + hour
        #expect(abs(clock.nowMilliseconds() - expected) < 60_000)
    }

    @Test("unfreezing alone runs on from where the clock stood")
    func unfreezeFromFrozenTime() throws {
        let clock = ServerClock()
        try clock.apply(ClockChange(freeze: true, freezeAt: 1_000_000))
        try clock.apply(ClockChange(freeze: false))
        #expect(!clock.snapshot().frozen)
        #expect(abs(clock.nowMilliseconds() - 1_000_000) < 60_000)
    }

    @Test("advancing a frozen clock moves the frozen time")
    func advanceFrozen() throws {
        let clock = ServerClock()
        try clock.apply(ClockChange(freeze: true, freezeAt: 1_000_000))
        try clock.apply(ClockChange(advanceMilliseconds: hour))
        #expect(clock.nowMilliseconds() == 1_000_000 + hour)
    }

    @Test("a shared setting is adopted only when its version is newer than the clock's own")
    func adoptsNewerVersionsOnly() throws {
        let clock = ServerClock()
        clock.adopt(ClockSetting(offsetMilliseconds: 1_000, frozenAt: nil), version: 1)
        #expect(clock.snapshot().offsetMilliseconds == 1_000)
        // This instance changes the clock and publishes it as version 2.
        try clock.apply(ClockChange(advanceMilliseconds: 1_000))
        clock.published(version: 2)
        // Its listener reads version 1 (or its own 2) late: neither undoes the change.
        clock.adopt(ClockSetting(offsetMilliseconds: 1_000, frozenAt: nil), version: 1)
        clock.adopt(ClockSetting(offsetMilliseconds: 2_000, frozenAt: nil), version: 2)
        try clock.apply(ClockChange(advanceMilliseconds: 1_000))
        clock.adopt(ClockSetting(offsetMilliseconds: 2_000, frozenAt: nil), version: 2)
        #expect(clock.snapshot().offsetMilliseconds == 3_000)
        // Another instance's later change is taken.
        clock.adopt(ClockSetting(offsetMilliseconds: 0, frozenAt: 5_000), version: 4)
        #expect(clock.snapshot() == (now: 5_000, offsetMilliseconds: 0, frozen: true))
    }
}
