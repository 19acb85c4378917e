import GronaMockPlatform
import Testing

@testable import GronaMockHTTP

/// The connection state machine through whole exchanges, input after input, as `Connection` feeds it: what a
/// client sees (an answer, a 408, a close, a linger) follows from the actions.
@Suite("Connection state machine: whole exchanges")
struct ConnectionStateMachineScenarioTests {
    static let now = TestTime.now
    static let second = TestTime.second

    @Test("a keep-alive request from its first byte to the idle close")
    func keepAliveRequest() {
        var machine = Machine(limits: .test, now: Self.now)
        // A new connection has the header timeout to start its first request.
        #expect(machine.state == .open(.betweenRequests, idleDeadline: Self.now + 10 * Self.second))
        #expect(machine.bytesRead() == .parse)
        #expect(machine.nextRequestWanted(.empty) == .parse)
        #expect(machine.inputParsed(partialRequest: true, now: Self.now) == .none)
        #expect(machine.headRead("A", keepAlive: true, expectsContinue: false, now: Self.now) == .none)
        #expect(machine.nextRequestWanted(.empty) == .parse)
        #expect(machine.bodyRead([1, 2], shuttingDown: false) == .dispatch("A", body: [1, 2]))
        #expect(machine.inputParsed(partialRequest: false, now: Self.now) == .none)
        #expect(machine.answerReady(.keepOpen) == .writeAnswer)
        let written = Self.now + 2 * Self.second
        #expect(machine.outboundFlushed(.empty, unreadInput: false, now: written) == .none)
        #expect(machine.timeoutsChecked(now: written + 74 * Self.second, .empty) == .none)
        #expect(machine.timeoutsChecked(now: written + 75 * Self.second, .empty) == .close(.idleTimeout))
        #expect(machine.isClosed)
    }

    @Test("bytes trickled slowly do not extend the header timeout: 408 at the first byte's deadline")
    func trickledHead() {
        var machine = Machine(limits: .test, now: Self.now)
        for offset in 0..<9 {
            #expect(machine.bytesRead() == .parse)
            #expect(machine.inputParsed(partialRequest: true, now: Self.now + UInt64(offset) * Self.second) == .none)
        }
        #expect(machine.timeoutsChecked(now: Self.now + 9 * Self.second, .empty) == .none)
        #expect(machine.timeoutsChecked(now: Self.now + 10 * Self.second, .empty) == .answerError(.requestTimeout, nil))
        #expect(machine.state == .draining(.failing, .discarding))
    }

    @Test("a full pipeline pauses reading between requests, never inside a body, and resumes with room")
    func pipelineFull() {
        var machine = Machine(limits: .test, now: Self.now)
        #expect(machine.headRead("A", keepAlive: true, expectsContinue: false, now: Self.now) == .none)
        #expect(machine.nextRequestWanted(.full) == .parse)
        #expect(machine.bodyRead([], shuttingDown: false) == .dispatch("A", body: []))
        #expect(machine.inputParsed(partialRequest: true, now: Self.now) == .none)
        #expect(machine.nextRequestWanted(.full) == .pauseReading)
        #expect(!machine.readsSocket)
        #expect(machine.backlogShrank(.full) == .none)
        #expect(
            machine.backlogShrank(Machine.Backlog(unanswered: 3, write: .init(bytes: 1000, lastProgress: 0))) == .none)
        #expect(machine.backlogShrank(.owed) == .resumeReading)
        // The next request's header clock, started before the pause, still runs.
        #expect(
            machine.state
                == .open(.head(deadline: Self.now + 10 * Self.second), idleDeadline: Self.now + 10 * Self.second))
        #expect(machine.readsSocket)
    }

    @Test("a client that half-closes still gets the answers it is owed, then the connection closes")
    func halfClose() {
        var machine = Machine(limits: .test, now: Self.now)
        #expect(machine.headRead("A", keepAlive: true, expectsContinue: false, now: Self.now) == .none)
        #expect(machine.bodyRead([], shuttingDown: false) == .dispatch("A", body: []))
        #expect(machine.peerFinished(.owed, holdsRequest: false) == .updateInterest)
        #expect(!machine.readsSocket)
        #expect(machine.outboundFlushed(.owed, unreadInput: false, now: Self.now) == .none)
        #expect(machine.answerReady(.keepOpen) == .writeAnswer)
        #expect(machine.outboundFlushed(.empty, unreadInput: false, now: Self.now) == .close(.finished))
    }

    @Test("a half-close with a body cut short drops that request: nothing is left to answer")
    func cutBody() {
        var machine = Machine(limits: .test, now: Self.now)
        #expect(machine.headRead("A", keepAlive: true, expectsContinue: false, now: Self.now) == .none)
        #expect(machine.peerFinished(.empty, holdsRequest: false) == .close(.clientFinished))
    }

    @Test("a held request's client that finishes sending is gone at once, even if the hold came after the end")
    func heldClientGoes() {
        var machine = Machine(limits: .test, now: Self.now)
        #expect(machine.peerFinished(.owed, holdsRequest: true) == .close(.holdAbandoned))

        machine = Machine(limits: .test, now: Self.now)
        #expect(machine.peerFinished(.owed, holdsRequest: false) == .updateInterest)
        #expect(machine.holdStarted(holdsRequest: true) == .close(.holdAbandoned))

        // Paused, the end is watched for alone, and only while a request is held.
        machine = Machine(state: NamedState.openPaused.state, limits: .test)
        #expect(machine.interest(writePending: false, holdsRequest: false) == [])
        #expect(machine.interest(writePending: false, holdsRequest: true) == .readHangup)
        #expect(machine.hangupSeen(holdsRequest: true) == .close(.holdAbandoned))
    }

    @Test("100 Continue goes once, and never after the answer that closes the connection")
    func continueOnce() {
        var machine = Machine(limits: .test, now: Self.now)
        #expect(machine.headRead("A", keepAlive: true, expectsContinue: true, now: Self.now) == .none)
        #expect(machine.continueDue() == .sendContinue)
        #expect(machine.continueDue() == .none)

        machine = Machine(limits: .test, now: Self.now)
        #expect(machine.headRead("B", keepAlive: true, expectsContinue: true, now: Self.now) == .none)
        // An earlier request's answer closes the connection while B's body is awaited.
        #expect(machine.answerReady(.close) == .writeAnswer)
        #expect(machine.continueDue() == .none)
        #expect(machine.requestReadingBody == nil)
    }

    @Test("Connection: close with a further request already read lingers, drops what comes, and ends at the deadline")
    func lingeringClose() {
        var machine = Machine(limits: .test, now: Self.now)
        #expect(machine.headRead("A", keepAlive: false, expectsContinue: false, now: Self.now) == .none)
        #expect(machine.bodyRead([], shuttingDown: false) == .dispatch("A", body: []))
        #expect(machine.bytesRead() == .discard)
        #expect(machine.answerReady(.close) == .writeAnswer)
        #expect(machine.answerReady(.keepOpen) == .dropAnswer)
        #expect(machine.outboundFlushed(.empty, unreadInput: true, now: Self.now) == .linger)
        #expect(machine.interest(writePending: false, holdsRequest: false) == .read)
        #expect(machine.bytesRead() == .discard)
        #expect(machine.timeoutsChecked(now: Self.now + 2 * Self.second, .empty) == .close(.lingerEnded))
    }

    @Test("an unreadable request is answered after the answers owed before it, and ends the connection")
    func errorAfterOwedAnswers() {
        var machine = Machine(limits: .test, now: Self.now)
        let error = HTTPError(HTTPParseError.badRequest("bad"))
        #expect(machine.requestUnreadable(error) == .answerError(error, nil))
        #expect(machine.requestUnreadable(error) == .none)
        #expect(machine.answerReady(.keepOpen) == .writeAnswer)
        #expect(machine.outboundFlushed(.owed, unreadInput: false, now: Self.now) == .none)
        #expect(machine.answerReady(.close) == .writeAnswer)
        #expect(machine.state == .draining(.finalAnswerQueued(.afterError), .discarding))
        // After an error the client may still be sending: linger even with nothing of it read.
        #expect(machine.outboundFlushed(.empty, unreadInput: false, now: Self.now) == .linger)
    }

    @Test("shutdown lets the request being read finish, answers it, then closes")
    func shutdownMidBody() {
        var machine = Machine(limits: .test, now: Self.now)
        #expect(machine.headRead("A", keepAlive: true, expectsContinue: false, now: Self.now) == .none)
        #expect(machine.shutdownRequested(.empty, partialRequest: true) == .none)
        #expect(machine.bodyRead([], shuttingDown: true) == .dispatch("A", body: []))
        #expect(machine.answerReady(.close) == .writeAnswer)
        #expect(machine.outboundFlushed(.empty, unreadInput: false, now: Self.now) == .close(.finished))
    }

    @Test("what the socket is watched for, and whether it is read, in each kind of state")
    func interestAndReading() {
        let cases: [(NamedState, Poller.Interest, Bool)] = [
            (.openBetween, .read, true), (.openBody, .read, true), (.openPaused, [], false),
            (.lastReadDiscarding, .read, true), (.lastReadPaused, [], false), (.lastReadEnded, [], false),
            (.finalDiscarding, .read, true), (.lingering, .read, true), (.closed, [], false),
        ]
        for (named, interest, reads) in cases {
            #expect(named.machine.interest(writePending: false, holdsRequest: false) == interest, "\(named)")
            #expect(named.machine.readsSocket == reads, "\(named)")
            let writing = named == .closed ? [] : interest.union(.write)
            #expect(named.machine.interest(writePending: true, holdsRequest: false) == writing, "\(named)")
        }
        // While reading, the responders are not asked whether a request is held (it costs a lock each).
        let asked = Mutex(0)
        _ = NamedState.openBetween.machine.interest(
            writePending: false,
            holdsRequest: asked.withLock {
                $0 += 1
                return true
            })
        #expect(asked.withLock { $0 } == 0)
    }
}
