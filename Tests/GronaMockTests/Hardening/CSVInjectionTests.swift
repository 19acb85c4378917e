import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
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

    @Test("a quote or = followed by a combining mark is still escaped and neutralised (found in review)")
    func combiningMarks() {
        // One Character to Swift, two scalars to a spreadsheet.
        #expect(EventCSV.textCell("a\"\u{301},=HYPERLINK(1)") == "\"a\"\"\u{301},=HYPERLINK(1)\"")
        #expect(EventCSV.textCell("=\u{301}SUM(1)") == "\"'=\u{301}SUM(1)\"")
        #expect(EventCSV.textCell("\r\n@SUM(1)") == "\"'\r\n@SUM(1)\"")
        // The cell splits into the same number of fields whatever it holds.
        let row = EventCSV.row(["a": "x\"\u{301},=1,@2", "b": "y"], columns: ["a", "b"])
        #expect(Self.fields(row).count == 2)
    }

    /// RFC 4180 fields of one row, counted on scalars as a spreadsheet would.
    static func fields(_ row: String) -> [String] {
        var fields: [String] = []
        var current = ""
        var quoted = false
        var scalars = row.unicodeScalars.makeIterator()
        var pending = scalars.next()
        while let scalar = pending {
            pending = scalars.next()
            if quoted {
                if scalar == "\"" {
                    if pending == "\"" {
                        current.unicodeScalars.append("\"")
                        pending = scalars.next()
                    } else {
                        quoted = false
                    }
                } else {
                    current.unicodeScalars.append(scalar)
                }
            } else if scalar == "\"" {
                quoted = true
            } else if scalar == "," {
                fields.append(current)
                current = ""
            } else {
                current.unicodeScalars.append(scalar)
            }
        }
        fields.append(current)
        return fields
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
