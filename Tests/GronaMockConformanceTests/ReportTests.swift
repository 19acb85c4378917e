import Foundation
import GronaMockConformance
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `--run`/`--skip` take the tests they say, and the JUnit file has one `<testcase>` per scenario with its area
/// as `classname` (issue 30, "Must show").
@Suite("Filters and reports")
struct ReportTests {
    static let names = [
        "signatures/bad-signature", "signatures/unknown-kid", "kills/kill-on-screen", "retries/429-retry-after",
        "retries/503-retry-after",
    ]

    @Test(
        "--run and --skip: a test runs when it matches any --run (all, with none) and no --skip",
        arguments: [
            ([], [], names),
            (["^signatures/"], [], ["signatures/bad-signature", "signatures/unknown-kid"]),
            (["kid", "kill"], [], ["signatures/unknown-kid", "kills/kill-on-screen"]),
            ([], ["retry-after$"], ["signatures/bad-signature", "signatures/unknown-kid", "kills/kill-on-screen"]),
            (["^retries/"], ["503"], ["retries/429-retry-after"]),
            (["^kills/kill-on-screen$"], ["kills"], []),
        ])
    func filters(run: [String], skip: [String], expected: [String]) throws {
        let filter = try TestFilter(run: run, skip: skip)
        #expect(Self.names.filter(filter.includes) == expected)
    }

    @Test("a pattern that is not a regular expression is refused by name")
    func badPattern() {
        #expect(throws: TestFilter.BadPattern.self) { try TestFilter(run: ["(unclosed"]) }
    }

    static func report() -> ConformanceReport {
        func result(_ area: String, _ name: String, _ outcome: TestResult.Outcome) -> TestResult {
            TestResult(
                name: "\(area)/\(name)", area: area, scenario: name, description: "d", outcome: outcome,
                durationMilliseconds: 1234, log: ["+0 ms  GET config → 200 <&>"])
        }
        let failure = Explanation(
            place: "steps[2] render", expected: "home_top to show nothing", observed: "it shows \"x\" & <y>",
            why: "the signature does not verify", evidence: ["+0 ms  GET config → 200  rev 1 (tampered)"])
        return ConformanceReport(
            service: ServiceClient.Description(name: "s", version: "1", protocolVersion: 1, capabilities: ["events"]),
            startedAt: 0,
            results: [
                result("signatures", "bad-signature", .failed([failure])), result("signatures", "unknown-kid", .passed),
                result("offline", "backlog-once", .skipped(missing: ["offline"])),
            ], durationMilliseconds: 4000)
    }

    @Test(
        "JUnit: one testcase per scenario, classname its area, a failure with the explanation, a skip with the capability"
    )
    func junit() throws {
        let xml = Self.report().junit
        let cases = try JUnitCases(xml)
        #expect(cases.map(\.classname) == ["offline", "signatures", "signatures"])
        #expect(cases.map(\.name) == ["backlog-once", "bad-signature", "unknown-kid"])
        #expect(cases.map(\.time) == ["1.234", "1.234", "1.234"])
        #expect(cases[0].skipped == "missing capability: offline")
        #expect(cases[1].failure?.hasPrefix("steps[2] render: expected home_top to show nothing") == true)
        #expect(cases[1].failureText.contains("it shows \"x\" & <y>"))
        #expect(cases[1].failureText.contains("why: the signature does not verify"))
        #expect(cases[2].failure == nil && cases[2].skipped == nil)
    }

    @Test("text lines: PASS with its time, FAIL with the explanation, SKIPPED with the missing capability")
    func lines() {
        let report = Self.report()
        let lines = report.results.flatMap(ConformanceReport.lines)
        #expect(lines.first == "FAIL signatures/bad-signature (1234 ms)")
        #expect(lines.contains("    steps[2] render: expected home_top to show nothing"))
        #expect(lines.contains("PASS signatures/unknown-kid (1234 ms)"))
        #expect(lines.last == "SKIPPED offline/backlog-once (missing capability: offline)")
        #expect(report.summary.hasPrefix("1 passed, 1 failed, 1 skipped in 4000 ms"))
    }

    @Test("the JSON report counts by area and keeps each failure's evidence and log")
    func json() {
        let json = Self.report().json(finished: true)
        #expect(json["summary"]?["failed"] == 1)
        #expect(json["areas"]?.arrayValue?.compactMap { $0["area"]?.stringValue } == ["offline", "signatures"])
        let failed = json["tests"]?[0]
        #expect(failed?["outcome"] == "failed")
        #expect(failed?["failures"]?[0]?["evidence"]?[0] == "+0 ms  GET config → 200  rev 1 (tampered)")
        #expect(failed?["log"]?.arrayValue?.count == 1)
    }
}

/// The `<testcase>` elements of a JUnit document, read with an XML parser (so the document must be
/// well-formed).
struct JUnitCases {
    struct Case {
        var classname = ""
        var name = ""
        var time = ""
        var failure: String?
        var failureText = ""
        var skipped: String?
    }

    let cases: [Case]

    init(_ xml: String) throws {
        let delegate = Reader()
        let parser = XMLParser(data: Data(xml.utf8))
        parser.delegate = delegate
        guard parser.parse() else {
            throw XMLError(description: parser.parserError.map { "\($0)" } ?? "not well-formed")
        }
        cases = delegate.cases
    }

    struct XMLError: Error, CustomStringConvertible {
        let description: String
    }

    private final class Reader: NSObject, XMLParserDelegate {
        var cases: [Case] = []
        var inFailure = false

        func parser(
            _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            switch element {
            case "testcase":
                cases.append(
                    Case(
                        classname: attributes["classname"] ?? "", name: attributes["name"] ?? "",
                        time: attributes["time"] ?? ""))
            case "failure":
                cases[cases.count - 1].failure = attributes["message"]
                inFailure = true
            case "skipped":
                cases[cases.count - 1].skipped = attributes["message"]
            default:
                break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if inFailure { cases[cases.count - 1].failureText += string }
        }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            if element == "failure" { inFailure = false }
        }
    }
}

extension JUnitCases: RandomAccessCollection {
    var startIndex: Int { cases.startIndex }
    var endIndex: Int { cases.endIndex }
    subscript(position: Int) -> Case { cases[position] }
}
