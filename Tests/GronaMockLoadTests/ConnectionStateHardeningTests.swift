import Testing

@testable import GronaMockLoad

/// How a request ends when its deadline passes, by where its connection was: a connect that never completed
/// (a SYN dropped by a full accept queue or a firewall) is "could not connect" (docs/load-testing.md's
/// `connect`), not an answer that did not come in time.
@Suite struct ConnectionStateHardeningTests {
    @Test func aConnectThatOutlivesTheDeadlineIsAConnectFailure() {
        var state = ClientConnectionState()
        #expect(state.timedOut() == .fail(.connect))
        #expect(state.state == .closed)
    }

    @Test func anAnswerThatOutlivesTheDeadlineIsATimeout() {
        var sending = ClientConnectionState()
        _ = sending.connected()
        #expect(sending.timedOut() == .fail(.timeout))
        var waiting = ClientConnectionState()
        _ = waiting.connected()
        _ = waiting.requestSent()
        #expect(waiting.timedOut() == .fail(.timeout))
    }
}
