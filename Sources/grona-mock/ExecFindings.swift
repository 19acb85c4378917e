import GronaMock
import GronaMockJSON

/// What `grona-mock exec` found in the store once the command ended, per served workspace: the events
/// received by type, the rejected ones, and the contract violations. Gathered while the server still runs,
/// and written as the `--report` JSON and the `--junit` XML.
struct ExecFindings {
    struct Violation {
        var rule: String
        var message: String
        var eventIDs: [String]
    }

    struct Workspace {
        let key: String
        var events: [(type: String, count: Int)] = []
        var rejected = 0
        var checkedEvents = 0
        var violations: [Violation] = []
        /// Why part of the check could not be done (the store failed, the check did not answer); nil when it
        /// all was. A workspace with a problem is not a clean one.
        var problem: String?
    }

    var workspaces: [Workspace]

    var violationCount: Int { workspaces.reduce(0) { $0 + $1.violations.count } }
    var problems: [(workspace: String, message: String)] {
        workspaces.compactMap { workspace in workspace.problem.map { (workspace.key, $0) } }
    }

    /// Every served workspace, in key order, through the engine's operations (the ones the control API calls).
    static func gather(from engine: GronaMockEngine) -> ExecFindings {
        ExecFindings(
            workspaces: engine.workspaceList().workspaces.map(\.workspaceKey).sorted().map { gather($0, engine) })
    }

    private static func gather(_ key: String, _ engine: GronaMockEngine) -> Workspace {
        var workspace = Workspace(key: key)
        do {
            for type in EventType.allCases {
                var filter = EventFilter()
                filter.workspace = key
                filter.type = type.rawValue
                workspace.events.append((type.rawValue, try engine.countEvents(filter)))
            }
            var page = EventPage()
            page.limit = EventPage.maxLimit
            repeat {
                let listing = try engine.rejectedEvents(workspace: key, page: page)
                workspace.rejected += listing.events.count
                page.cursor = listing.nextCursor
            } while page.cursor != nil
            let report = try engine.violations(key)
            workspace.checkedEvents = report.checkedEvents
            workspace.violations = report.violations.map { violation in
                Violation(rule: violation.rule.rawValue, message: violation.message, eventIDs: violation.eventIDs)
            }
        } catch {
            workspace.problem = "cannot check the events: \(error)"
        }
        return workspace
    }

    // MARK: - Output

    /// One line a violation, for standard error: rule, workspace, message, events.
    func violationLines() -> [String] {
        workspaces.flatMap { workspace in
            workspace.violations.map { violation in
                let events = violation.eventIDs.isEmpty ? "" : " (events \(violation.eventIDs.joined(separator: ", ")))"
                return Self.printable("\(violation.rule) in \(workspace.key): \(violation.message)\(events)")
            }
        }
    }

    /// The `--report` document.
    func report(
        command: [String], outcome: ChildProcess.Outcome, durationMilliseconds: Int64, url: String, status: Int32
    )
        -> JSONValue
    {
        var signal = JSONValue.null
        var commandError = JSONValue.null
        switch outcome {
        case .killed(let number): signal = .string(ChildProcess.name(of: number))
        case .notStarted(_, let reason): commandError = .string(reason)
        case .exited: break
        }
        let workspaces = workspaces.map { workspace -> JSONValue in
            .object([
                "workspaceKey": .string(workspace.key),
                "events": .object(JSONObject(workspace.events.map { ($0.type, .number(JSONNumber($0.count))) })),
                "rejectedEvents": .number(JSONNumber(workspace.rejected)),
                "checkedEvents": .number(JSONNumber(workspace.checkedEvents)),
                "violations": .array(
                    workspace.violations.map { violation in
                        .object([
                            "rule": .string(violation.rule), "message": .string(violation.message),
                            "eventIDs": .array(violation.eventIDs.map(JSONValue.string)),
                        ])
                    }),
                "error": workspace.problem.map(JSONValue.string) ?? .null,
            ])
        }
        return .object([
            "command": .array(command.map(JSONValue.string)),
            "exitStatus": .number(JSONNumber(Int64(outcome.status))),
            "signal": signal,
            "commandError": commandError,
            "durationMs": .number(JSONNumber(durationMilliseconds)),
            "url": .string(url),
            "violations": .number(JSONNumber(violationCount)),
            "gronaMockExitStatus": .number(JSONNumber(Int64(status))),
            "workspaces": .array(workspaces),
        ])
    }

    /// The `--junit` document: a test suite per workspace, a test case per rule of `ViolationRule`, each
    /// failing with its violations or passing, so that a clean run shows every check as passed. A workspace
    /// that could not be checked has one erroring test case instead.
    func junit(durationMilliseconds: Int64) -> String {
        var suites: [String] = []
        var totals = (tests: 0, failures: 0, errors: 0)
        for workspace in workspaces {
            let name = "grona-mock.\(workspace.key)"
            var cases: [String] = []
            var failures = 0
            if let problem = workspace.problem {
                let error = Self.element("error", [("type", "check_failed"), ("message", problem)])
                cases.append(Self.testcase(name, "contract check", content: error))
            } else {
                let known = ViolationRule.allCases.map(\.rawValue)
                let unknown = Set(workspace.violations.map(\.rule)).subtracting(known).sorted()
                for rule in known + unknown {
                    let found = workspace.violations.filter { $0.rule == rule }
                    guard let first = found.first else {
                        cases.append(Self.testcase(name, rule))
                        continue
                    }
                    failures += 1
                    let count = found.count == 1 ? "1 violation" : "\(found.count) violations"
                    let lines = found.map { violation in
                        violation.message
                            + (violation.eventIDs.isEmpty ? "" : " [\(violation.eventIDs.joined(separator: ", "))]")
                    }
                    let failure = Self.element(
                        "failure", [("type", rule), ("message", "\(count): \(first.message)")],
                        content: Self.xml(lines.joined(separator: "\n"), attribute: false))
                    cases.append(Self.testcase(name, rule, content: failure))
                }
            }
            let errors = workspace.problem == nil ? 0 : 1
            totals.tests += cases.count
            totals.failures += failures
            totals.errors += errors
            let properties = Self.element(
                "properties", [],
                content: Self.element("property", [("name", "checkedEvents"), ("value", "\(workspace.checkedEvents)")])
                    + Self.element("property", [("name", "rejectedEvents"), ("value", "\(workspace.rejected)")]))
            suites.append(
                Self.element(
                    "testsuite",
                    [
                        ("name", name), ("tests", "\(cases.count)"), ("failures", "\(failures)"),
                        ("errors", "\(errors)"), ("skipped", "0"), ("time", "0"),
                    ], content: "\n" + ([properties] + cases).joined(separator: "\n") + "\n"))
        }
        let fraction = String(durationMilliseconds % 1000)
        let time = "\(durationMilliseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
        let root = Self.element(
            "testsuites",
            [
                ("name", "grona-mock contract"), ("tests", "\(totals.tests)"), ("failures", "\(totals.failures)"),
                ("errors", "\(totals.errors)"), ("time", time),
            ], content: "\n" + suites.map { $0 + "\n" }.joined())
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + root + "\n"
    }

    private static func testcase(_ suite: String, _ name: String, content: String? = nil) -> String {
        element("testcase", [("classname", suite), ("name", name), ("time", "0")], content: content)
    }

    /// `<name a="v"…/>`, or `<name a="v"…>content</name>` with `content` already markup; values escaped.
    private static func element(_ name: String, _ attributes: [(String, String)], content: String? = nil) -> String {
        let head = "<\(name)" + attributes.map { " \($0.0)=\"\(xml($0.1))\"" }.joined()
        guard let content else { return head + "/>" }
        return head + ">" + content + "</\(name)>"
    }

    /// Text as XML 1.0 character data or an attribute value: markup characters as entities, and the
    /// characters XML 1.0 cannot hold at all (controls other than tab and line ends, U+FFFE, U+FFFF) as
    /// U+FFFD. In an attribute, tab and line ends are character references, or a parser would fold them to
    /// spaces; a carriage return is one everywhere, or it would be read as a line end.
    static func xml(_ text: String, attribute: Bool = true) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += attribute ? "&quot;" : "\""
            case "'": escaped += attribute ? "&apos;" : "'"
            case "\r": escaped += "&#13;"
            case "\n": escaped += attribute ? "&#10;" : "\n"
            case "\t": escaped += attribute ? "&#9;" : "\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    escaped += "\u{FFFD}"
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return escaped
    }

    /// A line for a terminal: control characters (an escape sequence in an event id) shown as U+FFFD.
    private static func printable(_ text: String) -> String {
        String(
            String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "\u{FFFD}" : $0 }))
    }
}
