import GronaMock
import GronaMockJSON

/// Runs a scenario's steps in order against the test service and the engine, collecting explanations. A
/// result that does not match its expectation is explained and the steps go on; a service that fails the
/// protocol (an unexpected status, no answer) stops them.
struct StepDriver {
    let run: ScenarioRun
    let traffic: TestTraffic
    let clientID: String
    let workspace: String
    private(set) var explanations: [Explanation] = []

    init(run: ScenarioRun, traffic: TestTraffic, clientID: String, workspace: String) {
        self.run = run
        self.traffic = traffic
        self.clientID = clientID
        self.workspace = workspace
    }

    private var engine: GronaMockEngine { run.context.engine }

    /// False when a step could not be carried out and the scenario stopped there.
    mutating func run(_ steps: [Step], prefix: String) -> Bool {
        for (index, step) in steps.enumerated() {
            let place = "\(prefix)[\(index)]"
            switch step {
            case .command(let name, let body, let expect):
                guard command(name, body, expect, place: place) else { return false }
            case .engine(let operation):
                do {
                    try run.perform(operation, workspace: workspace, traffic: traffic)
                    traffic.note("\(place): \(ScenarioRun.describe(operation))")
                } catch {
                    explanations.append(
                        Explanation(
                            place: place, expected: "\(ScenarioRun.describe(operation)) to apply", observed: "\(error)")
                    )
                    return false
                }
            case .check(let expectations):
                let check = ExpectationCheck(traffic: traffic, engine: engine, workspace: workspace)
                for (number, expectation) in expectations.enumerated() {
                    if let failure = check.check(expectation, place: "\(place).check[\(number)]") {
                        explanations.append(failure)
                    }
                }
            case .repeated(let times, let inner):
                for round in 0..<times {
                    guard run(inner, prefix: "\(place).steps#\(round + 1)") else { return false }
                }
            }
        }
        return true
    }

    /// One command; `advanceTime` moves the mock's clock first, so that whatever the SDK does once its own
    /// clock has moved meets the mock at the same time.
    private mutating func command(
        _ name: ServiceCommand, _ body: JSONObject, _ expect: ResultExpectation?, place: String
    ) -> Bool {
        let label = "\(place) \(name.rawValue)"
        if name == .advanceTime, let ms = body["ms"]?.int64Value {
            do {
                _ = try engine.changeClock(ClockChange(advanceMilliseconds: ms))
            } catch {
                explanations.append(
                    Explanation(place: label, expected: "the mock's clock to advance \(ms) ms", observed: "\(error)"))
                return false
            }
        }
        traffic.note("\(label) \(Self.parameters(body))")
        let outcome: ServiceClient.CommandOutcome
        do {
            outcome = try run.context.service.command(clientID, body)
        } catch {
            explanations.append(
                Explanation(
                    place: label, expected: "the service to answer \(name.rawValue) (200, or 409 when refused)",
                    observed: error.description, evidence: traffic.log.suffix(20).map { $0 }))
            return false
        }
        switch outcome {
        case .result(let result) where result.objectValue?.isEmpty == false: traffic.note("  → \(result)")
        case .refused(let reason): traffic.note("  → refused: \(reason)")
        default: break
        }
        if let expect {
            explanations += ResultCheck.check(
                outcome, against: expect, command: name.rawValue, place: label, startMs: traffic.startMs
            ).map { failure in
                Explanation(
                    place: failure.place, expected: failure.expected, observed: failure.observed, why: failure.why,
                    evidence: failure.evidence + ["requests so far:"] + traffic.requests.suffix(15).map(\.line))
            }
        } else if case .refused(let reason) = outcome {
            explanations.append(
                Explanation(place: label, expected: "\(name.rawValue) to succeed", observed: "409 refused: \(reason)"))
        }
        explanations += run.applyPending(traffic, place: label)
        return true
    }

    /// The parameters of a command for the log, without the command's name.
    private static func parameters(_ body: JSONObject) -> String {
        var rest = body
        rest.remove("command")
        return rest.isEmpty ? "" : JSONValue.object(rest).description
    }
}
