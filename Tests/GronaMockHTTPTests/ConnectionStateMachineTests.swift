import Testing

@testable import GronaMockHTTP

/// The server connection's state machine without a socket: every input in every state, against a table of
/// what it should do there, including the inputs that make no sense in a state (bytes after the close, an
/// answer when the final one is queued), which must get a defined answer and never a trap.
///
/// Each input below is one row of arguments; its table is a `switch` over the states, one line per group of
/// states that behave alike. The test runs the input in every state and compares the action and the state after.
@Suite("Connection state machine: every input in every state")
struct ConnectionStateMachineTests {
    static let unreadable = HTTPError(HTTPParseError.badRequest("a broken head"))

    /// `.discarding` for each draining state becomes what `transform` makes of its drain.
    static func drained(_ named: NamedState, _ transform: (Machine.Drain) -> Machine.Drain) -> Machine.State {
        guard case .draining(let drain, let input) = named.state else { return named.state }
        return .draining(transform(drain), input)
    }

    static func withInput(_ named: NamedState, _ input: Machine.Input) -> Machine.State {
        guard case .draining(let drain, _) = named.state else { return named.state }
        return .draining(drain, input)
    }

    /// Where an open state goes when it stops reading requests for `drain`: paused stays paused.
    static func stopsReading(_ named: NamedState, _ drain: Machine.Drain) -> Machine.State {
        switch named {
        case .openPaused, .openPausedHead: .draining(drain, .paused)
        default: .draining(drain, .discarding)
        }
    }

    static let inputs: [MachineInput] = reading + clientEnds + writing + time

    static let reading: [MachineInput] = [
        MachineInput("bytes read") { $0.bytesRead() }.expecting {
            NamedState.open.contains($0) ? .same(.parse) : .same(.discard)
        },
        MachineInput("next request wanted, room") { $0.nextRequestWanted(.owed) }.expecting { named in
            switch named {
            case .openBetween, .openHead, .openBody, .openBodyLast: .same(.parse)
            case .openPaused, .openPausedHead: .same(.pauseReading)
            default: .same(.none)
            }
        },
        MachineInput("next request wanted, pipeline full") { $0.nextRequestWanted(.full) }.expecting { named in
            switch named {
            case .openBetween: .to(.openPaused, .pauseReading)
            case .openHead: .to(.openPausedHead, .pauseReading)
            // The body being read finishes first, or it could wait out its body timeout.
            case .openBody, .openBodyLast: .same(.parse)
            case .openPaused, .openPausedHead: .same(.pauseReading)
            default: .same(.none)
            }
        },
        MachineInput("head read") { $0.headRead("B", keepAlive: true, expectsContinue: false, now: TestTime.now) }
            .expecting { named in
                let deadline = TestTime.now + 30 * TestTime.second
                let body = Machine.BodyRead(request: "B", keepAlive: true, deadline: deadline, continueOwed: false)
                switch named {
                case .openBetween, .openHead, .openPaused, .openPausedHead:
                    return .to(.open(.body(body), idleDeadline: TestTime.idle))
                // A second head while a body is read would lose a request: the connection ends instead.
                case .openBody, .openBodyLast: return .closes(.inconsistentInput)
                default: return .same(.none)
                }
            },
        MachineInput("body read") { $0.bodyRead([7], shuttingDown: false) }.expecting { named in
            switch named {
            case .openBody: .to(.open(.betweenRequests, idleDeadline: TestTime.idle), .dispatch("A", body: [7]))
            case .openBodyLast: .to(.lastReadDiscarding, .dispatch("A", body: [7]))
            default: .same(.none)
            }
        },
        MachineInput("body read during shutdown") { $0.bodyRead([7], shuttingDown: true) }.expecting { named in
            switch named {
            case .openBody, .openBodyLast: .to(.lastReadDiscarding, .dispatch("A", body: [7]))
            default: .same(.none)
            }
        },
        MachineInput("input parsed, a request begun") { $0.inputParsed(partialRequest: true, now: TestTime.now) }
            .expecting { named in
                let head = TestTime.now + 10 * TestTime.second
                return named == .openBetween
                    ? .to(.open(.head(deadline: head), idleDeadline: TestTime.idle)) : .same(.none)
            },
        MachineInput("input parsed, no request begun") { $0.inputParsed(partialRequest: false, now: TestTime.now) }
            .expecting { $0 == .openHead ? .to(.openBetween) : .same(.none) },
        MachineInput("request unreadable") { $0.requestUnreadable(Self.unreadable) }.expecting { named in
            switch named {
            case .openBetween, .openHead, .openPaused, .openPausedHead:
                .to(Self.stopsReading(named, .failing), .answerError(Self.unreadable, nil))
            case .openBody, .openBodyLast: .to(.failingDiscarding, .answerError(Self.unreadable, "A"))
            case .lastReadDiscarding, .lastReadPaused, .lastReadEnded:
                .to(Self.drained(named) { _ in .failing }, .answerError(Self.unreadable, nil))
            // Our side is shut: nothing can be answered any more.
            case .lingering: .closes(.finished)
            // An error answer or the final answer is already on its way.
            default: .same(.none)
            }
        },
    ]

    static let clientEnds: [MachineInput] = [
        MachineInput("client finished, nothing owed") { $0.peerFinished(.empty, holdsRequest: false) }.expecting {
            $0.endSeen ? .same(.none) : .closes(.clientFinished)
        },
        MachineInput("client finished, an endless stream owed") { $0.peerFinished(.feed, holdsRequest: false) }
            .expecting { $0.endSeen ? .same(.none) : .closes(.clientFinished) },
        MachineInput("client finished, an answer owed") { $0.peerFinished(.owed, holdsRequest: false) }
            .expecting { named in
                if named.endSeen { return .same(.none) }
                if named == .lingering { return .closes(.clientFinished) }
                // The request whose body was being read is dropped: it can never be whole.
                if NamedState.open.contains(named) { return .to(.lastReadEnded, .updateInterest) }
                return .to(Self.withInput(named, .ended), .updateInterest)
            },
        MachineInput("client finished, a request held") { $0.peerFinished(.owed, holdsRequest: true) }.expecting {
            $0.endSeen ? .same(.none) : $0 == .lingering ? .closes(.clientFinished) : .closes(.holdAbandoned)
        },
        MachineInput("read failed") { $0.readFailed() }.expecting {
            $0 == .closed ? .same(.none) : .closes(.connectionLost)
        },
        MachineInput("hang-up seen, a request held") { $0.hangupSeen(holdsRequest: true) }.expecting {
            $0.endSeen ? .same(.none) : .closes(.holdAbandoned)
        },
        MachineInput("hang-up seen, nothing held") { $0.hangupSeen(holdsRequest: false) }.expecting {
            $0.endSeen ? .same(.none) : .same(.updateInterest)
        },
        MachineInput("hold started, still held") { $0.holdStarted(holdsRequest: true) }.expecting { named in
            if named == .closed { return .same(.none) }
            return NamedState.ended.contains(named) ? .closes(.holdAbandoned) : .same(.updateInterest)
        },
        MachineInput("hold started, answered meanwhile") { $0.holdStarted(holdsRequest: false) }.expecting {
            $0 == .closed ? .same(.none) : .same(.updateInterest)
        },
        MachineInput("closed by the loop") { $0.closeRequested(.loopClosed) }.expecting {
            $0 == .closed ? .same(.none) : .closes(.loopClosed)
        },
    ]

    /// Where an answer that ends the connection with `ending` leaves each state that may still answer.
    static func finalState(_ named: NamedState, _ ending: Machine.Ending) -> Machine.State {
        switch named.state {
        case .draining(.failing, let input):
            .draining(.finalAnswerQueued(ending == .afterResponse ? .afterError : ending), input)
        case .draining(_, let input): .draining(.finalAnswerQueued(ending), input)
        default: stopsReading(named, .finalAnswerQueued(ending))
        }
    }

    static let mayAnswer: [NamedState] = NamedState.allCases.filter {
        !NamedState.finalQueued.contains($0) && $0 != .lingering && $0 != .closed
    }

    static let writing: [MachineInput] = [
        MachineInput("answer ready, keeping the connection") { $0.answerReady(.keepOpen) }.expecting {
            mayAnswer.contains($0) ? .same(.writeAnswer) : .same(.dropAnswer)
        },
        MachineInput("answer ready, closing the connection") { $0.answerReady(.close) }.expecting {
            mayAnswer.contains($0) ? .to(finalState($0, .afterResponse), .writeAnswer) : .same(.dropAnswer)
        },
        MachineInput("answer ready, cut on purpose") { $0.answerReady(.abort) }.expecting {
            mayAnswer.contains($0) ? .to(finalState($0, .abort), .writeAnswer) : .same(.dropAnswer)
        },
        MachineInput("stream ended, keeping the connection") { $0.streamEnded(.keepOpen) }.expecting(
            everywhere: .same(.none)),
        MachineInput("stream ended, closing the connection") { $0.streamEnded(.close) }.expecting {
            mayAnswer.contains($0) ? .to(finalState($0, .afterResponse)) : .same(.none)
        },
        MachineInput("stream failed") { $0.streamEnded(.abort) }.expecting {
            mayAnswer.contains($0) ? .to(finalState($0, .abort)) : .same(.none)
        },
        MachineInput("continue due") { $0.continueDue() }.expecting { named in
            guard named == .openBody else { return .same(.none) }
            var body = NamedState.bodyRead
            body.continueOwed = false
            return .to(.open(.body(body), idleDeadline: TestTime.idle), .sendContinue)
        },
        MachineInput("flushed, nothing owed") { $0.outboundFlushed(.empty, unreadInput: false, now: TestTime.now) }
            .expecting { flushed($0, owed: false, unreadInput: false) },
        MachineInput("flushed, bytes of a further request read") {
            $0.outboundFlushed(.empty, unreadInput: true, now: TestTime.now)
        }.expecting { flushed($0, owed: false, unreadInput: true) },
        MachineInput("flushed, an answer owed") { $0.outboundFlushed(.owed, unreadInput: false, now: TestTime.now) }
            .expecting { flushed($0, owed: true, unreadInput: false) },
        MachineInput("write failed") { $0.writeFailed() }.expecting {
            $0 == .closed ? .same(.none) : .closes(.writeFailed)
        },
        MachineInput("backlog shrank, room") { $0.backlogShrank(.owed) }.expecting { named in
            switch named {
            case .openPaused: .to(.openBetween, .resumeReading)
            case .openPausedHead: .to(.openHead, .resumeReading)
            case .lastReadPaused, .failingPaused, .finalPaused: .to(withInput(named, .discarding), .resumeReading)
            default: .same(.none)
            }
        },
        MachineInput("backlog shrank, still full") { $0.backlogShrank(.full) }.expecting(everywhere: .same(.none)),
    ]

    /// The table of `outboundFlushed`.
    static func flushed(_ named: NamedState, owed: Bool, unreadInput: Bool) -> Outcome {
        let idleFromNow = TestTime.now + 75 * TestTime.second
        switch named {
        case .finalAbortDiscarding, .finalAbortEnded:
            return .closes(.aborted)
        // Only a client that may still be sending gets the linger (RFC 9112 §9.6).
        case .finalErrorDiscarding:
            return .to(.lingering(deadline: TestTime.linger), .linger)
        case .finalDiscarding, .finalPaused:
            return unreadInput ? .to(.lingering(deadline: TestTime.linger), .linger) : .closes(.finished)
        case .finalEnded, .finalErrorEnded:
            return .closes(.finished)
        case .lastReadEnded, .failingEnded:
            return owed ? .same(.none) : .closes(.finished)
        default:
            // An open connection owed nothing starts its idle timeout now.
            guard !owed, case .open(let reading, _) = named.state else { return .same(.none) }
            return .to(.open(reading, idleDeadline: idleFromNow))
        }
    }

    static let time: [MachineInput] = [
        MachineInput("deadlines checked early, nothing owed") { $0.timeoutsChecked(now: TestTime.now, .empty) }
            .expecting {
                // A connection that was to end and owes nothing ends, whatever the time.
                NamedState.draining.contains($0) ? .closes(.finished) : .same(.none)
            },
        MachineInput("deadlines checked early, an answer owed") { $0.timeoutsChecked(now: TestTime.now, .owed) }
            .expecting(everywhere: .same(.none)),
        MachineInput("deadlines checked early, a write pending") { $0.timeoutsChecked(now: TestTime.now, .stalled) }
            .expecting(everywhere: .same(.none)),
        MachineInput("deadlines passed, nothing owed") { $0.timeoutsChecked(now: TestTime.late, .empty) }.expecting {
            late($0, owed: false)
        },
        MachineInput("deadlines passed, an answer owed") { $0.timeoutsChecked(now: TestTime.late, .owed) }.expecting {
            late($0, owed: true)
        },
        MachineInput("deadlines passed, a write stalled") { $0.timeoutsChecked(now: TestTime.late, .stalled) }
            .expecting { named in
                switch named {
                case .closed: .same(.none)
                case .lingering: .closes(.lingerEnded)
                default: .closes(.writeTimeout)
                }
            },
        MachineInput("shutdown, nothing owed") { $0.shutdownRequested(.empty, partialRequest: false) }
            .expecting { named in
                switch named {
                // The request being read is finished and answered first.
                case .openBody, .openBodyLast, .closed: .same(.none)
                default: .closes(.shutdown)
                }
            },
        MachineInput("shutdown, an answer owed") { $0.shutdownRequested(.owed, partialRequest: false) }
            .expecting { named in
                switch named {
                case .openBetween, .openHead, .openPaused, .openPausedHead: .to(stopsReading(named, .lastRequestRead))
                default: .same(.none)
                }
            },
        MachineInput("shutdown inside a request") { $0.shutdownRequested(.empty, partialRequest: true) }
            .expecting { named in
                NamedState.draining.contains(named) || named == .lingering ? .closes(.shutdown) : .same(.none)
            },
    ]

    /// The table of `timeoutsChecked` once every deadline has passed.
    static func late(_ named: NamedState, owed: Bool) -> Outcome {
        switch named {
        case .openBetween, .openPaused: owed ? .same(.none) : .closes(.idleTimeout)
        case .openHead: .to(.failingDiscarding, .answerError(.requestTimeout, nil))
        case .openPausedHead: .to(.failingPaused, .answerError(.requestTimeout, nil))
        case .openBody, .openBodyLast: .to(.failingDiscarding, .answerError(.requestTimeout, "A"))
        case .lingering: .closes(.lingerEnded)
        case .closed: .same(.none)
        default: owed ? .same(.none) : .closes(.finished)
        }
    }

    @Test("each input in every state does what its table says", arguments: inputs)
    func table(input: MachineInput) {
        for named in NamedState.allCases {
            let expected = input.expected(named)
            let (action, state) = input.run(in: named)
            #expect(action == expected.action, "\(input.name) in \(named)")
            #expect(state == expected.state ?? named.state, "\(input.name) in \(named)")
        }
    }

    @Test("an action closes the connection exactly when the state becomes closed", arguments: inputs)
    func closingAgrees(input: MachineInput) {
        for named in NamedState.allCases {
            let (action, state) = input.run(in: named)
            let closes = if case .close = action { true } else { false }
            #expect(closes == (state == .closed && named != .closed), "\(input.name) in \(named): \(action)")
        }
    }

    @Test("the named states are all different, and so are the inputs' names")
    func distinct() {
        for (index, named) in NamedState.allCases.enumerated() {
            for other in NamedState.allCases.dropFirst(index + 1) {
                #expect(named.state != other.state, "\(named) and \(other) are one state")
            }
        }
        #expect(Set(Self.inputs.map(\.name)).count == Self.inputs.count)
    }
}
