import Foundation
import GronaMock
import GronaMockConformance
import GronaMockJSON
import Testing

/// The runner against scripted test services: one that does what the catalogue expects passes, one with a
/// flaw fails with an explanation that says what was expected, what was observed and shows the requests.
@Suite("The runner against scripted services", .serialized)
struct RunnerTests {
    /// A banner on home_top, and the steps of one visit whose exposure reaches the mock.
    static let onceper = """
        {
          "name": "once-per-visit", "area": "tests", "description": "Exposure once per visit.",
          "requires": ["configuration", "components", "events"],
          "workspace": { "config": { "campaigns": [ {
            "id": "home-hero", "name": "Hero", "status": "live", "priority": 100, "placement": "home_top",
            "assignment": { "unit": "install", "salt": "s" },
            "variants": [ { "id": "spring", "weight": 10000, "component": { "type": "banner", "title": "Spring" } } ] } ] } },
          "steps": [
            { "command": "visit", "screen": { "type": "home" } },
            { "command": "render", "placements": [ { "placement": "home_top" } ],
              "expect": { "slots": { "home_top": { "campaignID": "home-hero", "body.title": "Spring" } } } },
            { "command": "anchorVisible", "placement": "home_top" },
            { "command": "anchorVisible", "placement": "home_top" },
            { "command": "flush" }
          ],
          "expect": [
            { "events": { "type": "exposure", "campaignID": "home-hero", "timestamp": { "sdkTime": 0 } }, "count": 1,
              "why": "exposure is logged at most once per visit" },
            { "order": [ { "type": "eligible" }, { "type": "served" }, { "type": "exposure" } ] },
            { "requests": { "endpoint": "events", "status": 200, "sentAt": { "sdkTimeBetween": [0, 0] } }, "count": 1 },
            { "noViolations": true }
          ]
        }
        """

    /// After the first exposure is delivered, a trigger kills the campaign; the next poll takes it off the
    /// screen at once.
    static let killTrigger = """
        {
          "name": "kill-trigger", "area": "tests", "description": "A kill after the first exposure empties the screen.",
          "requires": ["configuration", "components", "events"],
          "workspace": { "config": { "campaigns": [ {
            "id": "home-hero", "name": "Hero", "status": "live", "priority": 100, "placement": "home_top",
            "assignment": { "unit": "install", "salt": "s" },
            "variants": [ { "id": "spring", "weight": 10000, "component": { "type": "banner", "title": "Spring" } } ] } ] } },
          "triggers": [
            { "when": { "event": { "type": "exposure", "campaignID": "home-hero" } },
              "do": [ { "engine": "kill", "campaign": "home-hero" },
                      { "engine": "fault", "rule": { "endpoint": "events", "kind": "status", "status": 503, "count": 1 } } ] }
          ],
          "steps": [
            { "command": "visit", "screen": { "type": "home" } },
            { "command": "render", "placements": [ { "placement": "home_top" } ] },
            { "command": "anchorVisible", "placement": "home_top" },
            { "command": "flush" },
            { "check": [ { "requests": { "endpoint": "events" }, "count": 1 } ] },
            { "command": "advanceTime", "ms": 60000 },
            { "command": "onScreen", "expect": { "slots": { "home_top": null }, "why": "a kill applies at once" } }
          ],
          "expect": [
            { "requests": { "endpoint": "config", "revision": 2, "at": 60000 }, "count": 1 },
            { "noViolations": true }
          ]
        }
        """

    /// One flush sends two batches (maxBatchSize 2); a trigger on the first adds a 503 for the next.
    static let midCommandTrigger = """
        {
          "name": "mid-command", "area": "tests", "description": "A trigger's fault meets the very next batch.",
          "requires": ["configuration", "components", "events"],
          "workspace": { "config": { "campaigns": [ {
            "id": "home-hero", "name": "Hero", "status": "live", "priority": 100, "placement": "home_top",
            "assignment": { "unit": "install", "salt": "s" },
            "variants": [ { "id": "spring", "weight": 10000, "component": { "type": "banner", "title": "Spring" } } ] } ] } },
          "client": { "events": { "maxBatchSize": 2 } },
          "triggers": [
            { "when": { "request": { "endpoint": "events", "status": 200 } },
              "do": [ { "engine": "fault", "rule": { "endpoint": "events", "kind": "status", "status": 503, "count": 1 } } ] }
          ],
          "steps": [
            { "command": "visit", "screen": { "type": "home" } },
            { "command": "render", "placements": [ { "placement": "home_top" } ] },
            { "command": "anchorVisible", "placement": "home_top" },
            { "command": "flush" }
          ],
          "expect": [
            { "requests": { "endpoint": "events", "status": 200, "eventCount": 2, "types.0": "eligible" }, "count": 1 },
            { "requests": { "endpoint": "events", "status": 503, "types.0": "anchor_visible" }, "count": 1,
              "why": "the fault was in place before the first batch's answer left" },
            { "requests": { "endpoint": "events" }, "count": 2 }
          ]
        }
        """

    @Test("a trigger's fault takes effect on the SDK's next request, inside the command that fired it")
    func triggerWithinOneCommand() throws {
        let report = try ConformanceFixture.run([try ConformanceFixture.scenario(Self.midCommandTrigger)])
        let lines = report.results.flatMap(ConformanceReport.lines)
        #expect(report.results.first?.passed == true, "\(lines.joined(separator: "\n"))")
    }

    @Test("a service that does what the catalogue expects passes, built-in scenarios and triggers included")
    func correctServicePasses() throws {
        let scenarios = [
            try ConformanceFixture.builtIn("signatures/bad-signature"), try ConformanceFixture.scenario(Self.onceper),
            try ConformanceFixture.scenario(Self.killTrigger),
        ]
        let report = try ConformanceFixture.run(scenarios)
        let lines = report.results.flatMap(ConformanceReport.lines)
        #expect(report.results.map(\.passed) == [true, true, true], "\(lines.joined(separator: "\n"))")
        #expect(
            report.results.map(\.name) == ["signatures/bad-signature", "tests/once-per-visit", "tests/kill-trigger"])
    }

    @Test("a service that uses an unverified configuration fails bad-signature, with what it showed and the requests")
    func unverifiedConfigurationFails() throws {
        let report = try ConformanceFixture.run(
            [try ConformanceFixture.builtIn("signatures/bad-signature")], flaws: .acceptsAnySignature)
        let result = try #require(report.results.first)
        guard case .failed(let explanations) = result.outcome else {
            Issue.record("it passed: \(result.log.joined(separator: "\n"))")
            return
        }
        let render = try #require(explanations.first { $0.expected == "home_top to show nothing" })
        #expect(render.place == "steps[2] render")
        #expect(render.observed.hasPrefix("it shows home-hero/main"))
        #expect(render.evidence.contains { $0.contains("GET config → 200") && $0.contains("(tampered)") })
        let status = try #require(explanations.first { $0.place == "steps[0] status" })
        #expect(status.why == "the only document it has seen does not verify")
        #expect(report.failed == 1)
    }

    @Test("a service that logs an exposure each time the anchor shows fails once-per-visit, the events shown")
    func repeatedExposureFails() throws {
        let report = try ConformanceFixture.run(
            [try ConformanceFixture.scenario(Self.onceper)], flaws: .repeatsExposures)
        guard case .failed(let explanations)? = report.results.first?.outcome else {
            Issue.record("it passed")
            return
        }
        let stored = try #require(explanations.first { $0.place == "expect[0]" })
        #expect(stored.expected.hasPrefix("exactly 1 stored event(s) matching {\"type\":\"exposure\""))
        #expect(stored.observed == "2")
        #expect(stored.why == "exposure is logged at most once per visit")
        #expect(stored.evidence.filter { $0.contains(" exposure home-hero/spring") }.count == 2)
        let violations = try #require(explanations.first { $0.place == "expect[3]" })
        #expect(violations.evidence.first?.hasPrefix("repeated_in_visit") == true)
    }

    @Test("a scenario the service lacks a capability for is skipped, naming it, and nothing is asked of the service")
    func skipped() throws {
        var text = Self.onceper.replacingOccurrences(of: #""events"]"#, with: #""events", "offline"]"#)
        text = text.replacingOccurrences(of: "once-per-visit", with: "offline-one")
        let report = try ConformanceFixture.run([try ConformanceFixture.scenario(text)])
        guard case .skipped(let missing)? = report.results.first?.outcome else {
            Issue.record("not skipped: \(String(describing: report.results.first?.outcome))")
            return
        }
        #expect(missing == ["offline"])
        #expect(
            ConformanceReport.lines(for: report.results[0]) == [
                "SKIPPED tests/offline-one (missing capability: offline)"
            ])
    }

    @Test("the filter takes the tests it names, and the engine keeps the report for the dashboard")
    func filteredAndKept() throws {
        let service = try ScriptedService()
        defer { service.stop() }
        try ConformanceFixture.withMock { server in
            let client = try #require(ServiceClient(url: service.url, timeoutSeconds: 10))
            let runner = ConformanceRunner(engine: server.engine, mockURL: server.url, service: client)
            let scenarios = [
                try ConformanceFixture.scenario(Self.onceper), try ConformanceFixture.scenario(Self.killTrigger),
            ]
            let report = try runner.run(scenarios, filter: try TestFilter(run: ["kill"]))
            #expect(report.results.map(\.name) == ["tests/kill-trigger"])
            let kept = try #require(server.engine.conformanceRun())
            #expect(kept["finished"] == true)
            #expect(kept["tests"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["tests/kill-trigger"])
            // Nothing of the test is left on the mock: its workspace, events and faults went with it.
            #expect(server.engine.workspaceList().workspaces.isEmpty)
            #expect(try server.engine.faultRules().isEmpty)
        }
    }
}
