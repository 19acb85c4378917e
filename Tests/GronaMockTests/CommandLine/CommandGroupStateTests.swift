import Testing

@testable import grona_mock

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `CommandGroupState`, input by input: what exec does with the command's process group at each step.
@Suite("grona-mock exec: the command group's lifecycle")
struct CommandGroupStateTests {
    let start = ContinuousClock.now

    @Test("while the command runs, every signal is passed on")
    func running() {
        var state = CommandGroupState()
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2] {
            #expect(state.received(signal, at: start) == .forward(signal))
        }
        #expect(state.checked(othersRunning: true, at: start + .seconds(60)) == .none, "no deadline while it runs")
        #expect(state.state == .running)
    }

    @Test("a command that leaves nothing running is collected at once")
    func nothingLeft() {
        var state = CommandGroupState()
        #expect(state.commandEnded(othersRunning: false, at: start) == .reap)
        #expect(state.state == .finished)
        #expect(state.received(SIGTERM, at: start) == .none, "nothing left to pass a signal to")
    }

    @Test("leftovers get SIGTERM, then SIGKILL at the end of the grace, then are waited for")
    func leftovers() {
        var state = CommandGroupState()
        #expect(state.commandEnded(othersRunning: true, at: start) == .terminateLeftovers)
        #expect(state.checked(othersRunning: true, at: start + CommandGroupState.grace - .milliseconds(1)) == .none)
        #expect(state.checked(othersRunning: true, at: start + CommandGroupState.grace) == .killLeftovers)
        #expect(state.checked(othersRunning: false, at: start + .seconds(3)) == .reap)
        #expect(state.state == .finished)
    }

    @Test("leftovers that go within the grace end the wait")
    func leftoversGo() {
        var state = CommandGroupState()
        _ = state.commandEnded(othersRunning: true, at: start)
        #expect(state.checked(othersRunning: false, at: start + .milliseconds(100)) == .reap)
    }

    @Test("a second request to stop during the grace kills at once; a user signal is still passed on")
    func impatient() {
        var state = CommandGroupState()
        _ = state.commandEnded(othersRunning: true, at: start)
        #expect(state.received(SIGUSR1, at: start) == .forward(SIGUSR1))
        #expect(state.received(SIGINT, at: start + .milliseconds(10)) == .killLeftovers)
        #expect(state.received(SIGINT, at: start + .milliseconds(20)) == .none, "SIGKILL is sent once")
    }

    @Test("members that survive SIGKILL are given up on, and the command is collected")
    func survivors() {
        var state = CommandGroupState()
        _ = state.commandEnded(othersRunning: true, at: start)
        _ = state.checked(othersRunning: true, at: start + CommandGroupState.grace)
        let killed = start + CommandGroupState.grace
        #expect(state.checked(othersRunning: true, at: killed + CommandGroupState.killWait - .milliseconds(1)) == .none)
        #expect(state.checked(othersRunning: true, at: killed + CommandGroupState.killWait) == .reapWithSurvivors)
        #expect(state.state == .finished)
    }
}
