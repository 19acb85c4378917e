import GronaMock
import GronaMockJSON
import GronaMockPlatform

/// What one test's SDK sent and what happened to its workspace, heard on the engine's event stream, and the
/// scenario's triggers, evaluated as it is heard.
///
/// **Why a listener.** A request is published (`EngineEvent.requestAnswered`) before its answer leaves, and a
/// listener runs then, on the publishing thread. So a trigger that adds a fault ("after the third batch, answer
/// 429") has it in place before the SDK can read the third answer and send the fourth, even when one command
/// sends several batches. An operation that publishes itself (a kill, a replacement, a rotation, the clock)
/// must not run inside a listener (the stream's order lock is held); it waits in `pending` and the runner
/// applies it the moment the command in progress returns, before the next step.
///
/// **The barrier.** The protocol's commands return once every request they caused has been answered, and each
/// answer was heard here before it left, so when a command returns this log holds every request it caused; the
/// events of each batch answered 200 were committed before that answer (contract §7), so the store holds them.
final class TestTraffic: Sendable {
    let workspaces: Set<String>
    let startMs: Int64
    let skewMs: Int64
    private let engine: GronaMockEngine
    let faultWorkspace: String

    private struct TriggerState {
        let trigger: Trigger
        let index: Int
        var seen = 0
        var fired = false
    }

    private struct State {
        var requests: [RecordedRequest] = []
        var log: [String] = []
        var triggers: [TriggerState]
        var pending: [(trigger: Int, step: EngineStep)] = []
        var faultErrors: [String] = []
    }

    private let state: Mutex<State>

    static let maxLog = 2000

    init(
        workspaces: Set<String>, faultWorkspace: String, startMs: Int64, skewMs: Int64, triggers: [Trigger],
        engine: GronaMockEngine
    ) {
        self.workspaces = workspaces
        self.faultWorkspace = faultWorkspace
        self.startMs = startMs
        self.skewMs = skewMs
        self.engine = engine
        state = Mutex(State(triggers: triggers.enumerated().map { TriggerState(trigger: $1, index: $0) }))
    }

    var requests: [RecordedRequest] { state.withLock { $0.requests } }
    var log: [String] { state.withLock { $0.log } }

    /// Adds a line to the log (the runner's steps, and what it heard).
    func note(_ line: String) {
        state.withLock { Self.append(line, to: &$0.log) }
    }

    private static func append(_ line: String, to log: inout [String]) {
        if log.count < maxLog {
            log.append(line)
        } else if log.count == maxLog {
            log.append("… the log stops here (\(maxLog) lines)")
        }
    }

    /// The engine operations triggers left for the runner, in the order they fired; taken once.
    func takePending() -> [(trigger: Int, step: EngineStep)] {
        state.withLock { state in
            defer { state.pending = [] }
            return state.pending
        }
    }

    /// Faults that triggers could not add.
    func takeFaultErrors() -> [String] {
        state.withLock { state in
            defer { state.faultErrors = [] }
            return state.faultErrors
        }
    }

    /// Called by the runner's listener, on the publishing thread: quick, never waits, never publishes.
    func hear(_ event: EngineEvent) {
        switch event {
        case .requestAnswered(let answered):
            // A request the endpoint could not place (an unknown workspace, a bad key) is this test's too:
            // one test runs at a time.
            guard answered.workspace.map(workspaces.contains) ?? true else { return }
            heard(RecordedRequest(answered, startMs: startMs, skewMs: skewMs))
        case .workspaceChanged(let change) where workspaces.contains(change.workspaceKey):
            note(
                "workspace \(change.workspaceKey): \(change.cause)"
                    + (change.served.map { ", revision \($0.configuration.revision)" } ?? ""))
        case .faultFired(let firing) where firing.workspace.map(workspaces.contains) ?? false:
            note("fault fired on \(firing.endpoint.rawValue): \(firing.action)")
        default:
            break
        }
    }

    private func heard(_ request: RecordedRequest) {
        let faults = state.withLock { state -> [(Int, JSONValue)] in
            state.requests.append(request)
            Self.append(request.line, to: &state.log)
            var faults: [(Int, JSONValue)] = []
            for index in state.triggers.indices where !state.triggers[index].fired {
                let trigger = state.triggers[index].trigger
                switch trigger.condition {
                case .request(let matcher):
                    if matcher.accepts(request.view, startMs: startMs) { state.triggers[index].seen += 1 }
                case .event(let matcher):
                    state.triggers[index].seen +=
                        request.acceptedEvents.filter { matcher.accepts($0, startMs: startMs) }.count
                }
                guard state.triggers[index].seen >= trigger.count else { continue }
                state.triggers[index].fired = true
                Self.append("trigger \(index) fired: \(trigger.source)", to: &state.log)
                for action in trigger.actions {
                    if case .fault(let rule) = action {
                        faults.append((index, rule))
                    } else {
                        state.pending.append((index, action))
                    }
                }
            }
            return faults
        }
        // Outside this log's lock, still on the publishing thread: the fault is in place before the answer
        // that fired it leaves. Adding a rule publishes nothing.
        for (index, rule) in faults {
            do {
                _ = try engine.addFault(FaultRule.parse(Self.scoped(rule, to: faultWorkspace)))
                note("trigger \(index) added the fault \(rule)")
            } catch {
                state.withLock { $0.faultErrors.append("trigger \(index) could not add the fault \(rule): \(error)") }
            }
        }
    }

    /// A scenario's fault rule, for the test's workspace.
    static func scoped(_ rule: JSONValue, to workspace: String) -> JSONValue {
        guard var object = rule.objectValue else { return rule }
        object.set("workspace", .string(workspace))
        return .object(object)
    }
}

/// The runner's one listener on an engine's event stream (listeners live as long as the engine), handing what
/// it hears to the test that runs now.
final class TrafficRecorder: Sendable {
    private let current = Mutex<TestTraffic?>(nil)

    init(engine: GronaMockEngine) {
        engine.events.listen(requests: true) { [weak self] event in
            self?.current.withLock { $0 }?.hear(event)
        }
    }

    func record(_ traffic: TestTraffic?) {
        current.withLock { $0 = traffic }
    }
}
