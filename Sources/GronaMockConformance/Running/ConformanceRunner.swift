import GronaMock
import GronaMockJSON
import GronaMockPlatform

/// Which tests a run takes: a test runs when its name (`area/scenario`) matches one `--run` pattern (any, when
/// none is given) and no `--skip` pattern. Patterns are regular expressions searched for in the name, as
/// `go test -run` does, so `kills` takes the area and `^kills/kill-on-screen$` one test.
package struct TestFilter: Sendable {
    /// The patterns, each checked to compile when the filter is made (a `Regex` is not `Sendable`, so each
    /// is compiled again where it is used).
    private let run: [String]
    private let skip: [String]

    /// A pattern that is not a regular expression.
    package struct BadPattern: Error, CustomStringConvertible {
        package let pattern: String
        package let reason: String
        package var description: String { "\(JSONText.quoted(pattern)) is not a regular expression: \(reason)" }
    }

    package init(run: [String] = [], skip: [String] = []) throws(BadPattern) {
        for pattern in run + skip {
            do {
                _ = try Regex(pattern)
            } catch {
                throw BadPattern(pattern: pattern, reason: "\(error)")
            }
        }
        self.run = run
        self.skip = skip
    }

    package func includes(_ name: String) -> Bool {
        func matches(_ pattern: String) -> Bool {
            guard let regex = try? Regex(pattern) else { return false }
            return (try? regex.firstMatch(in: name)) != nil
        }
        return (run.isEmpty || run.contains(where: matches)) && !skip.contains(where: matches)
    }
}

/// Runs scenarios one after another against a test service, each in its own workspace of one mock, and keeps
/// the report in the engine as it grows (the dashboard's Conformance view, `GET /_mock/conformance`).
package final class ConformanceRunner {
    private let engine: GronaMockEngine
    private let mockURL: String
    private let service: ServiceClient
    private let recorder: TrafficRecorder

    /// `mockURL`: the mock's base URL as the SDK reaches it.
    package init(engine: GronaMockEngine, mockURL: String, service: ServiceClient) {
        self.engine = engine
        self.mockURL = mockURL
        self.service = service
        recorder = TrafficRecorder(engine: engine)
    }

    /// The keys the scenarios name that the mock does not hold (it must hold all of `ScenarioWorkspace.keyIDs`).
    package var missingKeys: [String] {
        let keys = engine.registry.keys
        return ScenarioWorkspace.keyIDs.filter { keys[$0] == nil }
    }

    /// Asks the service what it is, then runs each scenario `filter` takes, in the order given; `progress` hears
    /// each result as it comes. Throws when the service cannot say what it is.
    package func run(
        _ scenarios: [Scenario], filter: TestFilter, progress: (TestResult) -> Void = { _ in }
    ) throws(ServiceClient.Failure) -> ConformanceReport {
        let description = try service.describe()
        let started = MonotonicClock.now()
        let startedAt = ServerClock.wallMilliseconds()
        let context = RunContext(
            engine: engine, mockURL: mockURL, service: service, capabilities: description.capabilities,
            recorder: recorder)
        var report = ConformanceReport(service: description, startedAt: startedAt, results: [], durationMilliseconds: 0)
        let chosen = scenarios.filter { filter.includes($0.testName) }
        engine.recordConformanceRun(report.json(finished: false))
        for (number, scenario) in chosen.enumerated() {
            let result = ScenarioRun(scenario: scenario, context: context, number: number + 1).run()
            report.results.append(result)
            report.durationMilliseconds = Int((MonotonicClock.now() &- started) / 1_000_000)
            engine.recordConformanceRun(report.json(finished: number + 1 == chosen.count))
            progress(result)
        }
        if chosen.isEmpty { engine.recordConformanceRun(report.json(finished: true)) }
        return report
    }
}
