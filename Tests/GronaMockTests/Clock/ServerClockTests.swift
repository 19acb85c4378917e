import GronaMockHTTP
import GronaMockJSON
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
}
