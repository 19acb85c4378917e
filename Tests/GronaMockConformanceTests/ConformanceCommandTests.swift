import Foundation
import GronaMockTestSupport
import Testing

/// `grona-mock conformance` as a user runs it: the built binary, its output and its exit status.
@Suite("grona-mock conformance", .serialized)
struct ConformanceCommandTests {
    /// `grona-mock conformance ARGUMENTS`, to its end.
    static func run(_ arguments: [String]) throws -> BinaryRunner.Result {
        try BinaryRunner.run(
            ["conformance"] + arguments, environment: ["TMPDIR": FileManager.default.temporaryDirectory.path])
    }

    @Test("--list prints the tests the filters take, one a line with what each checks")
    func list() throws {
        let all = try Self.run(["--list"])
        #expect(all.status == 0)
        let names = all.stdout.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
        #expect(names.contains("signatures/bad-signature"))
        let some = try Self.run(["--list", "--run", "^signatures/", "--skip", "bad-signature"])
        let chosen = some.stdout.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
        #expect(!chosen.isEmpty && chosen.allSatisfy { $0.hasPrefix("signatures/") })
        #expect(!chosen.contains("signatures/bad-signature"))
        #expect(chosen.count == names.filter { $0.hasPrefix("signatures/") }.count - 1)
    }

    @Test(
        "usage errors exit 64 with a sentence",
        arguments: [
            ([], "--service URL is required"),
            (["--service", "ftp://x"], "--service must be an http://HOST:PORT URL"),
            (["--list", "--run", "(oops"], "--run/--skip: \"(oops\" is not a regular expression"),
            (["--list", "--no-catalogue"], "--no-catalogue leaves nothing to run"),
            (["--list", "--frobnicate"], "unknown option --frobnicate"),
        ])
    func usage(arguments: [String], message: String) throws {
        let result = try Self.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test("a --scenarios file with an error stops the run before any test, naming its path and line (exit 64)")
    func badScenarioFile() throws {
        let directory = try ConformanceFixture.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("broken.json")
        try Data(ScenarioLoadingTests.file(step: #"{ "command": "vist" }"#).utf8).write(to: file)
        let result = try Self.run(["--list", "--scenarios", directory.path])
        #expect(result.status == 64)
        #expect(
            result.stderr.contains("\(file.path):8: steps[1].command: unknown command \"vist\""), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("a run against a scripted service: PASS and FAIL lines, a summary, JUnit and JSON files, exit 1 on a failure")
    func run() throws {
        let directory = try ConformanceFixture.directory()
        let reports = try ConformanceFixture.directory()
        defer {
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.removeItem(at: reports)
        }
        try Data(RunnerTests.onceper.utf8).write(to: directory.appendingPathComponent("once.json"))
        let junit = reports.appendingPathComponent("conformance.xml")
        let json = reports.appendingPathComponent("conformance.json")
        let arguments = [
            "--scenarios", directory.path, "--run", "^signatures/bad-signature$", "--run", "^tests/",
            "--junit", junit.path, "--json", json.path,
        ]
        let good = try ScriptedService()
        let passing = try Self.run(["--service", good.url] + arguments)
        good.stop()
        #expect(passing.status == 0, "\(passing.stdout)\n\(passing.stderr)")
        let lines = passing.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(lines)")
        #expect(lines[0].hasPrefix("PASS signatures/bad-signature ("))
        #expect(lines[1].hasPrefix("PASS tests/once-per-visit ("))
        #expect(lines[2].hasPrefix("2 passed, 0 failed, 0 skipped in "))
        let cases = try JUnitCases(String(decoding: try Data(contentsOf: junit), as: UTF8.self))
        #expect(cases.map(\.classname) == ["signatures", "tests"])

        let flawed = try ScriptedService(flaws: .repeatsExposures)
        let failing = try Self.run(["--service", flawed.url] + arguments)
        flawed.stop()
        #expect(failing.status == 1, "\(failing.stderr)")
        #expect(failing.stdout.contains("FAIL tests/once-per-visit ("))
        #expect(failing.stdout.contains("    expect[0]: expected exactly 1 stored event(s) matching"))
        let report = try JSONSerialization.jsonObject(with: try Data(contentsOf: json)) as? [String: Any]
        #expect((report?["summary"] as? [String: Any])?["failed"] as? Int == 1)
    }

    @Test("a service that is not there fails the run (exit 1) with a sentence, not a hang")
    func serviceAbsent() throws {
        let result = try Self.run(["--service", "http://127.0.0.1:9", "--run", "^signatures/bad-signature$"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot connect to the test service"), "\(result.stderr)")
    }
}
