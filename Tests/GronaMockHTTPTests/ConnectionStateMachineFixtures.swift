import Testing

@testable import GronaMockHTTP

/// The states, clock and backlogs the connection state machine tests put it through. `Request` is a name.
typealias Machine = ConnectionStateMachine<String>

enum TestTime {
    static let second: UInt64 = 1_000_000_000
    /// The time every input is given, unless it says otherwise.
    static let now: UInt64 = 1_000 * second
    /// Past every deadline of every state below.
    static let late: UInt64 = 10_000 * second
    /// The idle deadline the open states carry: not the one a flush would set (now + idle timeout).
    static let idle: UInt64 = now + 50 * second
    static let head: UInt64 = now + 5 * second
    static let body: UInt64 = now + 20 * second
    static let linger: UInt64 = now + 2 * second
}

extension Machine.Limits {
    static let test = Machine.Limits(
        headerTimeout: .seconds(10), bodyTimeout: .seconds(30), idleTimeout: .seconds(75),
        writeTimeout: .seconds(60), maxPipelinedRequests: 4, readHighWater: 1000)
}

extension Machine.Backlog {
    static let empty = Machine.Backlog()
    /// One request waits for its answer: room for more.
    static let owed = Machine.Backlog(unanswered: 1)
    /// As many requests wait as the pipeline takes.
    static let full = Machine.Backlog(unanswered: 4)
    /// An endless stream (a live feed) is being sent, and nothing else.
    static let feed = Machine.Backlog(stream: .init(stopsWhenClientCloses: true))
    /// Bytes queued since `TestTime.now` that the client has not read.
    static let stalled = Machine.Backlog(unanswered: 1, write: .init(bytes: 10, lastProgress: TestTime.now))
}

/// One representative of each state the machine can be in (each case, each reading stage, each way of
/// draining with each input, each ending), by name.
enum NamedState: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case openBetween, openHead, openBody, openBodyLast, openPaused, openPausedHead
    case lastReadDiscarding, lastReadPaused, lastReadEnded
    case failingDiscarding, failingPaused, failingEnded
    case finalDiscarding, finalPaused, finalEnded
    case finalErrorDiscarding, finalErrorEnded
    case finalAbortDiscarding, finalAbortEnded
    case lingering, closed

    var testDescription: String { rawValue }

    /// Request "A", keeping the connection alive, its `100 Continue` owed.
    static let bodyRead = Machine.BodyRead(request: "A", keepAlive: true, deadline: TestTime.body, continueOwed: true)

    var state: Machine.State {
        switch self {
        case .openBetween: .open(.betweenRequests, idleDeadline: TestTime.idle)
        case .openHead: .open(.head(deadline: TestTime.head), idleDeadline: TestTime.idle)
        case .openBody: .open(.body(Self.bodyRead), idleDeadline: TestTime.idle)
        case .openBodyLast:
            .open(
                .body(.init(request: "A", keepAlive: false, deadline: TestTime.body, continueOwed: false)),
                idleDeadline: TestTime.idle)
        case .openPaused: .open(.paused(headDeadline: nil), idleDeadline: TestTime.idle)
        case .openPausedHead: .open(.paused(headDeadline: TestTime.head), idleDeadline: TestTime.idle)
        case .lastReadDiscarding: .draining(.lastRequestRead, .discarding)
        case .lastReadPaused: .draining(.lastRequestRead, .paused)
        case .lastReadEnded: .draining(.lastRequestRead, .ended)
        case .failingDiscarding: .draining(.failing, .discarding)
        case .failingPaused: .draining(.failing, .paused)
        case .failingEnded: .draining(.failing, .ended)
        case .finalDiscarding: .draining(.finalAnswerQueued(.afterResponse), .discarding)
        case .finalPaused: .draining(.finalAnswerQueued(.afterResponse), .paused)
        case .finalEnded: .draining(.finalAnswerQueued(.afterResponse), .ended)
        case .finalErrorDiscarding: .draining(.finalAnswerQueued(.afterError), .discarding)
        case .finalErrorEnded: .draining(.finalAnswerQueued(.afterError), .ended)
        case .finalAbortDiscarding: .draining(.finalAnswerQueued(.abort), .discarding)
        case .finalAbortEnded: .draining(.finalAnswerQueued(.abort), .ended)
        case .lingering: .lingering(deadline: TestTime.linger)
        case .closed: .closed
        }
    }

    var machine: Machine { Machine(state: state, limits: .test) }

    static let open: [NamedState] = [.openBetween, .openHead, .openBody, .openBodyLast, .openPaused, .openPausedHead]
    static let ended: [NamedState] = [.lastReadEnded, .failingEnded, .finalEnded, .finalErrorEnded, .finalAbortEnded]
    /// The client's end is already seen, or the connection is closed.
    var endSeen: Bool { Self.ended.contains(self) || self == .closed }

    static let draining: [NamedState] = allCases.filter { $0.state.isDraining }
    static let finalQueued: [NamedState] = draining.filter { $0.rawValue.hasPrefix("final") }
}

extension Machine.State {
    var isDraining: Bool {
        if case .draining = self { true } else { false }
    }
}

/// What an input should do to a state: its action, and the state after (unchanged, or another).
struct Outcome: Sendable, Equatable, CustomStringConvertible {
    var action: Machine.Action
    /// nil: the state is unchanged.
    var state: Machine.State?

    static func same(_ action: Machine.Action) -> Outcome { Outcome(action: action, state: nil) }
    static func to(_ state: Machine.State, _ action: Machine.Action = .none) -> Outcome {
        Outcome(action: action, state: state)
    }
    static func to(_ named: NamedState, _ action: Machine.Action = .none) -> Outcome { to(named.state, action) }
    static func closes(_ reason: Machine.CloseReason) -> Outcome { to(Machine.State.closed, .close(reason)) }

    var description: String { "\(action) → \(state.map { "\($0)" } ?? "unchanged")" }
}

/// One input with its arguments, and the table of what it should do in each state.
struct MachineInput: Sendable, CustomTestStringConvertible {
    var name: String
    var apply: @Sendable (inout Machine) -> Machine.Action
    var expected: @Sendable (NamedState) -> Outcome

    /// An input; its table is given by `expecting`.
    init(_ name: String, _ apply: @escaping @Sendable (inout Machine) -> Machine.Action) {
        self.name = name
        self.apply = apply
        expected = { _ in .same(.none) }
    }

    /// The input, doing the same in every state.
    func expecting(everywhere outcome: Outcome) -> MachineInput { expecting { _ in outcome } }

    /// The input with its table.
    func expecting(_ table: @escaping @Sendable (NamedState) -> Outcome) -> MachineInput {
        var input = self
        input.expected = table
        return input
    }

    var testDescription: String { name }

    /// What the input does to the machine in `named`: its action and the state after.
    func run(in named: NamedState) -> (action: Machine.Action, state: Machine.State) {
        var machine = named.machine
        let action = apply(&machine)
        return (action, machine.state)
    }
}
