import Testing

@testable import GronaMockLoad

/// A target that answers every request after the run's first configuration with a body that never ends (issue
/// 28: it took the generator to 324 MB with 10 installs and 3 GB with 300, since it read 32 MiB of each
/// answer). Each answer is given up at its endpoint's limit and counted as `answer_too_large`, in the text
/// report, the JSON report and the error thresholds; the run finishes its work within its drain.
@Suite struct EndlessAnswerTests {
    @Test(arguments: HostileService.EndlessAnswer.allCases)
    func answersThatNeverEndAreCountedAsTooLarge(framing: HostileService.EndlessAnswer) throws {
        let service = try HostileService(endless: framing)
        defer { service.stop() }
        let settings = service.settings(tag: "endless")
        let result = try FleetRunner(settings: settings).run()
        let statistics = result.statistics

        // Every batch was answered (each attempt cut at the limit) and given up after its retries, before
        // the drain ran out: nothing hung, and nothing was left in flight.
        #expect(statistics.eventsLogged > 0)
        #expect(statistics.eventsUnsent == 0, "\(framing)")
        #expect(statistics.eventsAbandoned == statistics.eventsLogged, "\(framing)")
        #expect(statistics.eventsAcknowledged == 0)

        let report = LoadReport(
            run: LoadRunDescription(
                url: settings.url, workspace: settings.workspace, installs: settings.installs, rate: settings.rate,
                durationSeconds: settings.duration.seconds, seed: settings.seed, version: "test"),
            statistics: statistics, elapsedSeconds: result.elapsedSeconds,
            evaluating: [try Threshold(parsing: "errors.count==0", verifyEnabled: false)])

        // What a user reads: the kind by endpoint in the text, and the same counts in the JSON.
        let failures = report.text.split(separator: "\n").drop { !$0.hasPrefix("failures") }.prefix(3)
        let configLine = failures.first { $0.contains("config ") }.map(String.init) ?? ""
        let eventsLine = failures.first { $0.contains("events ") }.map(String.init) ?? ""
        #expect(configLine.contains("answer_too_large"), "\(framing): \(report.text)")
        #expect(eventsLine.contains("answer_too_large"), "\(framing): \(report.text)")
        #expect(!report.text.contains("malformed"), "\(framing): \(report.text)")

        let json = report.json
        for endpoint in ["config", "events"] {
            let figures = json["endpoints"]?[endpoint]
            let tooLarge = figures?["failures"]?["answer_too_large"]?.int64Value ?? 0
            #expect(tooLarge > 0, "\(framing): \(endpoint) \(String(describing: figures))")
            #expect(figures?["failures"]?["malformed"]?.int64Value == 0, "\(framing): \(endpoint)")
            #expect(figures?["errors"]?.int64Value == figures?["requests"]?.int64Value, "\(framing): \(endpoint)")
        }
        let warnings = json["warnings"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
        #expect(warnings.contains("answers_too_large"), "\(framing): \(warnings)")
        #expect(json["thresholds"]?[0]?["passed"]?.boolValue == false)
        #expect(!report.passed)
    }
}
