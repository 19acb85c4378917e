import Foundation
import GronaMock
import GronaTestSupport
import Testing

/// `events export --format csv` neutralises cells a spreadsheet would run as formulas (OWASP CSV injection).
@Suite("CSV export is safe to open in a spreadsheet")
struct CSVInjectionTests {
    @Test(
        "a text cell starting with = + - @ tab CR or NUL is prefixed with ' and quoted",
        arguments: [
            ("=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\""), ("+1", "\"'+1\""), ("-2+3", "\"'-2+3\""),
            ("@SUM(A1)", "\"'@SUM(A1)\""), ("\tx", "\"'\tx\""), ("\rx", "\"'\rx\""), ("\u{0}x", "\"'\u{0}x\""),
            ("plain", "plain"), ("a,b", "\"a,b\""), ("", ""), ("a=b", "a=b"),
        ])
    func cells(input: String, expected: String) {
        #expect(EventCSV.textCell(input) == expected)
    }

    @Test("numbers stay numbers, negative ones included")
    func numbers() {
        let event: JSONValue = ["n": -5, "s": "-5", "b": true]
        #expect(EventCSV.row(event, columns: ["n", "s", "b", "missing"]) == "-5,\"'-5\",true,")
    }

    @Test("an exported event with formula-like fields comes out neutralised")
    func export() throws {
        let fixture = try MockFixture.standard()
        let event = SampleEvents.placementEvent(
            "exposure", id: "=1+1", extra: [("sessionID", "@cmd"), ("visitID", "+x")])
        let status = try fixture.withServer { server in try EventsAPI.post(server.port, events: [event]).status }
        #expect(status == 200)
        let csv = try BinaryRunner.run(["events", "export", "--db", fixture.database.path, "--format", "csv"])
        #expect(csv.status == 0)
        let row = try #require(csv.stdout.split(separator: "\n").dropFirst().first)
        #expect(row.contains("\"'=1+1\""))
        #expect(row.contains("\"'@cmd\""))
        #expect(!row.split(separator: ",").contains { $0.hasPrefix("=") || $0.hasPrefix("@") || $0.hasPrefix("+") })
    }
}
