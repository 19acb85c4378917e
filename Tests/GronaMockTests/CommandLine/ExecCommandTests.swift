import Foundation
import GronaMock
import GronaMockJSON
import GronaMockTestSupport
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `grona-mock exec`, run as a CI job runs it: the built binary, a command that reaches the mock through
/// `GRONA_MOCK_URL`, and the exit status, stderr and report files it leaves.
@Suite("grona-mock exec")
struct ExecCommandTests {
    /// `grona-mock exec` on the fixture's workspaces and keys, with `options` and then `-- command`.
    static func exec(
        _ fixture: MockFixture, options: [String] = [], _ command: [String], environment: [String: String] = [:]
    ) throws -> BinaryRunner.Result {
        try BinaryRunner.run(
            ["exec", "--workspaces", fixture.workspaces.path, "--keys", fixture.keys.path, "--event-loops", "1"]
                + options + ["--"] + command, environment: environment)
    }

    /// A command that posts the batch in `file` to the mock's events endpoint, then exits with `status`.
    static func post(_ file: URL, thenExit status: Int = 0) -> [String] {
        [
            "/bin/sh", "-c",
            "curl -fsS -H 'Content-Type: application/json' --data-binary @\"$1\" \"$GRONA_MOCK_URL/v1/mobile/events\""
                + " && exit \(status)", "sh", file.path,
        ]
    }

    /// One whole visit of the fixture's banner to a correct install; with `demo`, each event says demo
    /// true while the workspace's demo mode is off: five `demo_mismatch` violations. `rejected` adds an
    /// event the endpoint refuses (an unknown placement), `unknownVariant` one that names a variant the
    /// campaign does not have.
    static func writeBatch(
        _ fixture: MockFixture, demo: Bool, rejected: Bool = false, idPrefix: String = "e-",
        unknownVariant: String? = nil
    ) throws -> URL {
        var stream = ViolationStream()
        stream.demo = demo
        stream.idPrefix = idPrefix
        let install = ViolationUnits.install(banner: true)
        stream.visit(install: install, visit: "v-1")
        if rejected { stream.add("eligible", install: install, placement: "home_topp", visit: "v-2") }
        if let unknownVariant { stream.add("eligible", install: install, variant: unknownVariant, visit: "v-3") }
        let file = fixture.root.appendingPathComponent("batch-\(UUID().uuidString).json")
        let body = EventsAPI.envelope(stream.sent.map(\.event), installID: install).serialized()
        try Data(body).write(to: file)
        return file
    }

    @Test("the command's exit status is grona-mock's", arguments: [0, 3])
    func exitStatus(status: Int) throws {
        let fixture = try MockFixture.standard()
        let result = try Self.exec(fixture, ["/bin/sh", "-c", "exit \(status)"])
        #expect(result.status == Int32(status), "stderr: \(result.stderr)")
    }

    @Test("a command killed by a signal gives 128 + the signal")
    func killedBySignal() throws {
        let fixture = try MockFixture.standard()
        let result = try Self.exec(fixture, ["/bin/sh", "-c", "kill -KILL $$"])
        #expect(result.status == 128 + SIGKILL)
        #expect(result.stderr.contains("the command was killed signal=SIGKILL"), "stderr: \(result.stderr)")
    }

    @Test("GRONA_MOCK_URL names the mock, which answers on it while the command runs; stdout is the command's")
    func urlInEnvironment() throws {
        let fixture = try MockFixture.standard()
        let result = try Self.exec(
            fixture, ["/bin/sh", "-c", "echo \"$GRONA_MOCK_URL\" && curl -fsS \"$GRONA_MOCK_URL/_mock/health\""])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "stdout: \(result.stdout)")
        let url = lines.first ?? ""
        #expect(url.hasPrefix("http://127.0.0.1:"))
        #expect((Int(url.split(separator: ":").last ?? "") ?? 0) > 0, "a real port, not 0: \(url)")
        let health = try JSONParser().parse(Array((lines.last ?? "").utf8))
        #expect(health["status"] == "ok")
        #expect(health["workspaces"]?["loaded"]?.int64Value == 1)
    }

    @Test("with an admin token, the command gets it in GRONA_MOCK_ADMIN_TOKEN and /_mock requires it")
    func adminToken() throws {
        let fixture = try MockFixture.standard()
        let script = """
            without=$(curl -s -o /dev/null -w '%{http_code}' "$GRONA_MOCK_URL/_mock/events?workspace=shop")
            with=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $GRONA_MOCK_ADMIN_TOKEN" \
              "$GRONA_MOCK_URL/_mock/events?workspace=shop")
            echo "$GRONA_MOCK_ADMIN_TOKEN $without $with"
            """
        let result = try Self.exec(fixture, options: ["--admin-token", "t0ken-42"], ["/bin/sh", "-c", script])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == "t0ken-42 401 200\n")
        let without = try Self.exec(fixture, ["/bin/sh", "-c", "echo \"${GRONA_MOCK_ADMIN_TOKEN-unset}\""])
        #expect(without.stdout == "unset\n")
    }

    @Test("the environment is inherited, with GRONA_MOCK_URL added")
    func inheritedEnvironment() throws {
        let fixture = try MockFixture.standard()
        let result = try Self.exec(
            fixture, ["/bin/sh", "-c", "echo \"$SDK_FLAVOUR\""], environment: ["SDK_FLAVOUR": "nightly build"])
        #expect(result.stdout == "nightly build\n")
    }

    @Test("TEST_RUNNER_GRONA_MOCK_URL carries the same URL, for xcodebuild to pass on to the test process")
    func testRunnerURL() throws {
        let fixture = try MockFixture.standard()
        let result = try Self.exec(
            fixture, ["/bin/sh", "-c", "echo \"$GRONA_MOCK_URL\" \"$TEST_RUNNER_GRONA_MOCK_URL\""])
        let urls = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ")
        #expect(urls.count == 2, "\(result.stdout)")
        #expect(urls.first?.hasPrefix("http://127.0.0.1:") == true, "\(result.stdout)")
        #expect(urls.first == urls.last)
    }

    @Test("a command that cannot be found gives 127, one that cannot be executed 126, each with the reason")
    func commandNotRun() throws {
        let fixture = try MockFixture.standard()
        let missing = try Self.exec(fixture, ["no-such-command-for-grona-mock", "--flag"])
        #expect(missing.status == 127)
        #expect(missing.stderr.contains("grona-mock exec: no-such-command-for-grona-mock: command not found"))
        let script = fixture.root.appendingPathComponent("not-executable.sh")
        try "#!/bin/sh\nexit 0\n".write(to: script, atomically: true, encoding: .utf8)
        let refused = try Self.exec(fixture, [script.path])
        #expect(refused.status == 126)
        #expect(refused.stderr.contains("\(script.path): cannot execute: Permission denied"), "\(refused.stderr)")
    }

    @Test(
        "usage errors exit 64 with a message and run nothing",
        arguments: [
            (["exec"], "name the command after --"),
            (["exec", "--port", "0", "true"], "unexpected argument \"true\""),
            (["exec", "--port", "0"], "name the command after --"),
            (["exec", "--"], "no command after --"),
            (["exec", "--bogus", "--", "true"], "unknown option --bogus"),
            (["exec", "--report", "--", "true"], "--report needs a value"),
            (["exec", "--port", "http", "--", "true"], "--port must be a whole number"),
        ])
    func usageErrors(arguments: [String], message: String) throws {
        let result = try BinaryRunner.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("grona-mock exec --help"))
        #expect(result.stdout.isEmpty)
    }

    @Test("--help lists the options, their variables and an example; the top help lists exec")
    func help() throws {
        let result = try BinaryRunner.run(["exec", "--help"])
        #expect(result.status == 0)
        for text in [
            "USAGE: grona-mock exec [options] -- COMMAND [ARGS...]", "--fail-on-violations", "--report FILE",
            "--junit FILE", "--port PORT", "GRONA_MOCK_PORT", "--admin-token", "GRONA_MOCK_URL", "EXAMPLE",
            "process group of its own", "SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2", "a watcher stops the group",
        ] {
            #expect(result.stdout.contains(text), "missing \(text)")
        }
        #expect(!result.stdout.contains("(default: 8080)"), "exec's port defaults to 0")
        let top = try BinaryRunner.run(["--help"])
        #expect(top.stdout.contains("exec "))
        #expect(!top.stdout.contains("__watch-group") && !result.stdout.contains("__watch-group"), "internal")
        // After --, --help is the command's.
        let fixture = try MockFixture.standard()
        let passed = try Self.exec(fixture, ["/bin/echo", "passed", "--help"])
        #expect(passed.stdout == "passed --help\n")
    }

    @Test("without --db the database is a temporary file, removed at the end; --db keeps it")
    func temporaryDatabase() throws {
        let fixture = try MockFixture.standard()
        let temporary = fixture.root.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let result = try Self.exec(
            fixture, ["/bin/sh", "-c", "ls \"$TMPDIR\"/grona-mock-exec.*"], environment: ["TMPDIR": temporary.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("grona-mock.sqlite"), "the database is in the temporary directory")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == [])

        let kept = try Self.exec(
            fixture, options: ["--db", fixture.database.path], ["/bin/true"], environment: ["TMPDIR": temporary.path])
        #expect(kept.status == 0)
        #expect(FileManager.default.fileExists(atPath: fixture.database.path))
    }

    @Test("--fail-on-violations fails a run whose events break the contract, and prints each violation")
    func failsOnViolations() throws {
        let fixture = try MockFixture.standard()
        let batch = try Self.writeBatch(fixture, demo: true)
        let result = try Self.exec(
            fixture, options: ["--fail-on-violations", "--admin-token", "t0ken"], Self.post(batch))
        #expect(result.status == 1, "stderr: \(result.stderr)")
        let violations = result.stderr.split(separator: "\n").filter { $0.hasPrefix("grona-mock exec: violation ") }
        #expect(violations.count == 5, "stderr: \(result.stderr)")
        #expect(
            violations.first?.contains("violation demo_mismatch in shop: ") == true
                && violations.first?.contains("demo mode is off") == true)
        #expect(result.stderr.contains("5 contract violations in 1 workspace; failing (--fail-on-violations)"))
    }

    @Test("--fail-on-violations passes a run whose events keep the contract")
    func passesWithoutViolations() throws {
        let fixture = try MockFixture.standard()
        let batch = try Self.writeBatch(fixture, demo: false)
        let result = try Self.exec(
            fixture, options: ["--fail-on-violations", "--admin-token", "t0ken"], Self.post(batch))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("\"accepted\":5"), "the batch was stored: \(result.stdout)")
        #expect(!result.stderr.contains("violation"))
    }

    @Test("a failing command's status wins over the violations")
    func commandStatusWins() throws {
        let fixture = try MockFixture.standard()
        let batch = try Self.writeBatch(fixture, demo: true)
        let result = try Self.exec(fixture, options: ["--fail-on-violations"], Self.post(batch, thenExit: 3))
        #expect(result.status == 3)
        #expect(result.stderr.contains("violation demo_mismatch in shop"))
        #expect(!result.stderr.contains("failing (--fail-on-violations)"))
    }

    @Test("--report writes the command, its status and duration, and per workspace the events and violations")
    func report() throws {
        let fixture = try MockFixture.standard()
        let batch = try Self.writeBatch(fixture, demo: true, rejected: true)
        let reportFile = fixture.root.appendingPathComponent("report.json")
        let command = Self.post(batch, thenExit: 2)
        let result = try Self.exec(fixture, options: ["--report", reportFile.path], command)
        #expect(result.status == 2, "stderr: \(result.stderr)")
        let report = try JSONParser().parse(Array(try Data(contentsOf: reportFile)))
        #expect(report["command"] == .array(command.map(JSONValue.string)))
        #expect(report["exitStatus"]?.int64Value == 2)
        #expect(report["signal"] == .null)
        #expect(report["commandError"] == .null)
        #expect((report["durationMs"]?.int64Value ?? -1) >= 0)
        #expect(report["url"]?.stringValue?.hasPrefix("http://127.0.0.1:") == true)
        #expect(report["violations"]?.int64Value == 5)
        #expect(report["gronaMockExitStatus"]?.int64Value == 2)
        let workspaces = report["workspaces"]?.arrayValue ?? []
        #expect(workspaces.count == 1)
        let shop = try #require(workspaces.first)
        #expect(shop["workspaceKey"] == "shop")
        #expect(
            shop["events"]
                == [
                    "eligible": 1, "anchor_visible": 1, "exposure": 1, "served": 1, "action": 1, "dismiss": 0,
                    "purchase": 0,
                ])
        #expect(shop["rejectedEvents"]?.int64Value == 1)
        #expect(shop["checkedEvents"]?.int64Value == 5)
        #expect(shop["error"] == .null)
        let violations = shop["violations"]?.arrayValue ?? []
        #expect(violations.map { $0["rule"]?.stringValue } == Array(repeating: "demo_mismatch", count: 5))
        #expect(violations.map { $0["eventIDs"] } == (1...5).map { .array([.string("e-\($0)")]) })
        #expect(violations.allSatisfy { ($0["message"]?.stringValue ?? "").contains("demo mode is off") })
    }

    @Test("--report of a command that could not start says why")
    func reportOfMissingCommand() throws {
        let fixture = try MockFixture.standard()
        let reportFile = fixture.root.appendingPathComponent("report.json")
        let result = try Self.exec(fixture, options: ["--report", reportFile.path], ["no-such-command-for-grona-mock"])
        #expect(result.status == 127)
        let report = try JSONParser().parse(Array(try Data(contentsOf: reportFile)))
        #expect(report["exitStatus"]?.int64Value == 127)
        #expect(report["commandError"] == "no-such-command-for-grona-mock: command not found")
        #expect(report["workspaces"]?[0]?["violations"] == [])
    }

    #if canImport(FoundationXML)
    /// The JUnit file as a parsed document; nil (and a recorded issue) when it is not well-formed XML.
    static func junit(_ file: URL) throws -> XMLElement? {
        let document = try XMLDocument(contentsOf: file, options: [])
        return document.rootElement()
    }

    static func attribute(_ element: XMLElement?, _ name: String) -> String? {
        element?.attribute(forName: name)?.stringValue
    }

    @Test("--junit has a test case per rule; a violated rule fails with its violations, escaped as XML")
    func junitWithViolations() throws {
        let fixture = try MockFixture.standard()
        // An event id a hostile SDK could send: markup, quotes, an escape sequence, a carriage return.
        let hostile = "e-<x a=\"1\">&amp;'\u{1B}[31m\r"
        let batch = try Self.writeBatch(fixture, demo: true, idPrefix: hostile, unknownVariant: "nope")
        let junitFile = fixture.root.appendingPathComponent("junit.xml")
        let result = try Self.exec(fixture, options: ["--junit", junitFile.path], Self.post(batch))
        #expect(result.status == 0, "without --fail-on-violations the command's status stands: \(result.stderr)")
        let root = try #require(try Self.junit(junitFile))
        #expect(root.name == "testsuites")
        let rules = ViolationRule.allCases.map(\.rawValue)
        #expect(Self.attribute(root, "tests") == String(rules.count))
        #expect(Self.attribute(root, "failures") == "2")
        let suites = root.elements(forName: "testsuite")
        #expect(suites.count == 1)
        let suite = try #require(suites.first)
        #expect(Self.attribute(suite, "name") == "grona-mock.shop")
        #expect(Self.attribute(suite, "failures") == "2")
        let cases = suite.elements(forName: "testcase")
        #expect(cases.compactMap { Self.attribute($0, "name") } == rules)
        for testcase in cases {
            let failures = testcase.elements(forName: "failure")
            if Self.attribute(testcase, "name") == "demo_mismatch" {
                #expect(failures.count == 1)
                let failure = try #require(failures.first)
                #expect(Self.attribute(failure, "type") == "demo_mismatch")
                #expect(Self.attribute(failure, "message")?.hasPrefix("6 violations: ") == true)
                let text = failure.stringValue ?? ""
                #expect(text.split(separator: "\n").count == 6, "\(text)")
                // The id comes back as sent, but for the escape character XML cannot hold.
                let expected = hostile.replacingOccurrences(of: "\u{1B}", with: "\u{FFFD}") + "1"
                #expect(text.contains("[\(expected)]"), "\(text)")
            } else if Self.attribute(testcase, "name") == "unknown_campaign_or_variant" {
                // Quotes in a message survive the attribute.
                let message = Self.attribute(failures.first, "message") ?? ""
                #expect(message.hasPrefix("1 violation: ") && message.contains("\"nope\""), "\(message)")
            } else {
                #expect(failures.isEmpty, "\(Self.attribute(testcase, "name") ?? "?") failed")
            }
        }
    }

    @Test("--junit of a clean run lists every rule as a passed test case")
    func junitClean() throws {
        let fixture = try MockFixture.standard()
        let batch = try Self.writeBatch(fixture, demo: false)
        let junitFile = fixture.root.appendingPathComponent("junit.xml")
        let result = try Self.exec(
            fixture, options: ["--junit", junitFile.path, "--fail-on-violations"], Self.post(batch))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let root = try #require(try Self.junit(junitFile))
        #expect(Self.attribute(root, "failures") == "0")
        #expect(Self.attribute(root, "errors") == "0")
        let cases = root.elements(forName: "testsuite").flatMap { $0.elements(forName: "testcase") }
        #expect(cases.count == ViolationRule.allCases.count)
        #expect(cases.allSatisfy { $0.children?.isEmpty ?? true })
    }
    #endif
}
