import Foundation
import GronaMockConformance
import GronaMockJSON
import Testing

/// A scenario file with an error is refused when it loads, before any test runs, with every problem at its
/// path and line (issue 30, "Must show").
@Suite("Scenario files")
struct ScenarioLoadingTests {
    /// A valid scenario with one thing broken, at a known line.
    static func file(step: String = #"{ "command": "flush" }"#, trigger: String? = nil, expect: String = "[]") -> String
    {
        """
        {
          "name": "broken",
          "area": "tests",
          "description": "One thing in it is wrong.",
          "requires": ["events"],
          "steps": [
            { "command": "visit", "screen": { "type": "home" } },
            \(step)
          ],
          "triggers": [\(trigger ?? "")],
          "expect": \(expect)
        }
        """
    }

    static func problems(_ text: String, file: String = "scenarios/broken.json") -> String? {
        do {
            _ = try ScenarioLoader.load(Array(text.utf8), file: file)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("the file as written loads")
    func valid() throws {
        let scenario = try ScenarioLoader.load(Array(Self.file().utf8), file: "ok.json")
        #expect(scenario.testName == "tests/broken")
        #expect(scenario.steps.count == 2)
    }

    @Test(
        "a file with an error is refused with its path, the line and the field",
        arguments: [
            (
                file(step: #"{ "command": "vist", "screen": { "type": "home" } }"#),
                #"scenarios/broken.json:8: steps[1].command: unknown command "vist"; the commands are status, advanceTime"#
            ),
            (
                file(step: #"{ "command": "render", "placement": "home_top" }"#),
                #"scenarios/broken.json:8: steps[1].placement: render takes no "placement"; it takes placements"#
            ),
            (
                file(step: #"{ "engine": "explode" }"#),
                #"scenarios/broken.json:8: steps[1].engine: unknown engine operation "explode""#
            ),
            (
                file(
                    trigger: #"{ "when": { "request": { "endpoint": "events" } }, "do": [ { "command": "flush" } ] }"#),
                #"scenarios/broken.json:10: triggers[0].do[0]: a trigger does engine operations only"#
            ),
            (
                file(
                    trigger:
                        #"{ "when": { "sent": { "type": "exposure" } }, "do": [ { "engine": "kill", "campaign": "x" } ] }"#
                ),
                #"scenarios/broken.json:10: triggers[0].when.sent: when has no field "sent""#
            ),
            (
                file(expect: #"[ { "events": { "type": "exposure" }, "count": "two" } ]"#),
                #"scenarios/broken.json:11: expect[0].count: a count (a number, or {min, max}) must be an object"#
            ),
            (
                file(expect: #"[ { "stored": { "type": "exposure" } } ]"#),
                #"scenarios/broken.json:11: expect[0]: an expectation must have one of "events", "requests""#
            ),
            (
                file(expect: #"[ { "events": { "timestamp": { "after": 5 } } } ]"#),
                #"scenarios/broken.json:11: expect[0].events.timestamp.after: unknown operator "after""#
            ),
        ])
    func refused(text: String, expected: String) {
        let message = Self.problems(text)
        #expect(message?.contains(expected) == true, "\(message ?? "it loaded")")
    }

    @Test("every problem of a file is reported at once, each at its own line")
    func allAtOnce() throws {
        let text = """
            {
              "name": "Broken Name",
              "area": "tests",
              "description": "Three things are wrong.",
              "steps": [
                { "command": "identify", "customerID": "c-1" }
              ],
              "expect": [ { "noViolations": false } ]
            }
            """
        let message = try #require(Self.problems(text))
        let lines = message.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("scenarios/broken.json:2: name: name must be lowercase") }, "\(lines)")
        #expect(
            lines.contains { $0.hasPrefix(#"scenarios/broken.json:1: requires: the steps use "identify""#) }, "\(lines)"
        )
        #expect(
            lines.contains {
                $0.hasPrefix("scenarios/broken.json:8: expect[0].noViolations: noViolations must be true")
            })
        #expect(lines.count == 3, "\(lines)")
    }

    @Test("a file that is not JSON is refused at the line of the fault")
    func notJSON() {
        let message = Self.problems("{\n  \"name\": \"x\",\n  \"area\": ,\n}")
        #expect(message?.hasPrefix("scenarios/broken.json:3: not JSON: ") == true, "\(message ?? "")")
    }

    @Test("the built-in catalogue loads whole: no errors, no two tests of one name")
    func catalogue() {
        let (scenarios, errors) = Catalogue.builtIn()
        #expect(errors.isEmpty, "\(errors.map(\.description))")
        #expect(Catalogue.duplicates(scenarios).isEmpty)
        #expect(!scenarios.isEmpty)
    }
}

/// The built-in catalogue as the engine sees it: every scenario's workspace (and its bundle's) is served, with
/// content errors only where the scenario allows them, and the catalogue spans what issue 30 asks.
@Suite("The built-in catalogue")
struct CatalogueTests {
    @Test("every scenario's workspace is served by the engine; only allowInvalidWorkspace ones have errors")
    func workspacesServe() throws {
        let scenarios = Catalogue.builtIn().scenarios
        try ConformanceFixture.withMock { server in
            for (index, scenario) in scenarios.enumerated() {
                let key = "check-\(index)"
                let base = ScenarioWorkspace.base(key: key, secret: "sk_check_\(index)")
                let document = scenario.workspace.map { ScenarioWorkspace.merge(base, $0) } ?? base
                do {
                    let summary = try server.engine.putWorkspace(key, document: document, allowInvalid: true)
                    let errors = summary.problems.filter { $0.severity == .error }
                    #expect(
                        errors.isEmpty || scenario.allowInvalidWorkspace,
                        "\(scenario.testName): \(errors.map { "\($0)" })")
                    #expect(
                        !errors.isEmpty || !scenario.allowInvalidWorkspace,
                        "\(scenario.testName) allows an invalid workspace it does not need")
                } catch {
                    Issue.record("\(scenario.testName): \(error)")
                }
                if case .other(let patch, _, _, _)? = scenario.client.bundle {
                    let bundle = ScenarioWorkspace.merge(
                        ScenarioWorkspace.base(key: key + "-b", secret: "sk_check_\(index)_b"), patch)
                    #expect(throws: Never.self, "\(scenario.testName)'s bundle") {
                        try server.engine.putWorkspace(key + "-b", document: bundle, allowInvalid: false)
                    }
                }
            }
        }
    }

    @Test("at least 30 scenarios over at least 8 areas, each area with two or more")
    func breadth() {
        let scenarios = Catalogue.builtIn().scenarios
        let areas = Dictionary(grouping: scenarios, by: \.area)
        #expect(scenarios.count >= 30)
        #expect(areas.count >= 8)
        #expect(areas.filter { $0.value.count < 2 }.keys.sorted() == [])
    }
}

/// docs/conformance.md and the scenario schema say what the loader does: every built-in test is listed, and
/// the schema's enums are the loader's vocabularies.
@Suite("Conformance documentation")
struct ConformanceDocumentationTests {
    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs")

    @Test("docs/conformance.md lists every built-in test, and no other")
    func catalogueListed() throws {
        let text = try String(contentsOf: Self.docs.appendingPathComponent("conformance.md"), encoding: .utf8)
        let table = try #require(text.range(of: "\n## The catalogue\n")).upperBound
        let listed = Set(
            text[table...].split(separator: "\n").filter { $0.hasPrefix("| `") }
                .map { $0.dropFirst(3).prefix { $0 != "`" } }.map(String.init))
        let names = Set(Catalogue.builtIn().scenarios.map(\.testName))
        #expect(names.subtracting(listed).sorted() == [], "not listed")
        #expect(listed.subtracting(names).sorted() == [], "listed but not in the catalogue")
    }

    @Test("the scenario schema's commands, capabilities, engine operations and operators are the loader's")
    func schemaVocabularies() throws {
        let data = try Data(contentsOf: Self.docs.appendingPathComponent("conformance/schemas/scenario.schema.json"))
        let schema = try JSONParser().parse(Array(data))
        let defs = try #require(schema["$defs"])
        func strings(_ value: JSONValue?) -> Set<String> { Set(value?.arrayValue?.compactMap(\.stringValue) ?? []) }
        #expect(
            strings(schema["properties"]?["requires"]?["items"]?["enum"]) == Set(Capability.allCases.map(\.rawValue)))
        #expect(
            strings(defs["step"]?["oneOf"]?[0]?["properties"]?["command"]?["enum"])
                == Set(ServiceCommand.allCases.map(\.rawValue)))
        var operations: Set<String> = []
        for variant in defs["engineStep"]?["oneOf"]?.arrayValue ?? [] {
            let engine = variant["properties"]?["engine"]
            operations.formUnion(strings(engine?["enum"]))
            if let constant = engine?["const"]?.stringValue { operations.insert(constant) }
        }
        #expect(operations == Set(ScenarioLoader.engineOperations))
        let operators = Set(defs["valueMatcher"]?["oneOf"]?[1]?["properties"]?.objectValue?.keys ?? [])
        #expect(operators == Set(ValueMatcher.operators))
        let kinds = Set(
            (defs["expectation"]?["oneOf"]?.arrayValue ?? []).compactMap { $0["required"]?[0]?.stringValue })
        #expect(kinds == Set(ScenarioLoader.expectationKinds))
    }
}
