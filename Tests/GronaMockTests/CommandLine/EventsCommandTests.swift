import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

@Suite("grona-mock events")
struct EventsCommandTests {
    @Test("export writes stored events as ndjson or CSV with filters; summary counts them; from the database file")
    func exportAndSummary() throws {
        let fixture = try MockFixture.standard()
        let body =
            #"{"workspaceKey":"shop","installID":"i-1","sdk":{"platform":"ios","version":"1"},"app":{"id":"a","version":"1"},"#
            + #""sentAt":1764478800000,"events":[{"eventID":"e1","type":"served","timestamp":1764478799000,"#
            + #""placement":"home_top","screen":{"type":"home"},"visitID":"v, \"1\"","campaignID":"home-hero","#
            + #""variantID":"banner","arm":"treatment"},{"eventID":"e2","type":"purchase","timestamp":1764478799500,"#
            + #""orderID":"o-1","totalMinor":1000,"treatments":[{"campaignID":"checkout-10-off","variantID":"ten-off","#
            + #""placement":"checkout_above_pay","type":"percent_off","valueMilli":10000}]}]}"#
        try fixture.withServer { server in
            let response = try fetch(
                server.port,
                "POST /v1/mobile/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
            #expect(response.status == 200)
            let database = fixture.database.path
            let all = try BinaryRunner.run(["events", "export", "--db", database])
            #expect(all.status == 0)
            let lines = all.stdout.split(separator: "\n")
            #expect(lines.count == 2)
            let first = try JSONParser().parse(String(lines[0]))
            #expect(first["eventID"]?.stringValue == "e1")
            #expect(first["correctedTimestamp"]?.int64Value != nil)

            let purchases = try BinaryRunner.run(["events", "export", "--db", database, "--type", "purchase"])
            #expect(purchases.stdout.split(separator: "\n").count == 1)

            let csv = try BinaryRunner.run(["events", "export", "--db", database, "--format", "csv"])
            let rows = csv.stdout.split(separator: "\n")
            #expect(rows.first?.hasPrefix("sequence,workspaceKey,eventID,type,") == true)
            #expect(rows[1].contains(#""v, ""1""""#))

            let summary = try BinaryRunner.run(["events", "summary", "--db", database, "--workspace", "shop"])
            let parsed = try JSONParser().parse(Array(summary.stdout.utf8))
            let rowsByCampaign = parsed["campaigns"]?.arrayValue ?? []
            #expect(
                rowsByCampaign.contains {
                    $0["campaignID"]?.stringValue == "home-hero" && $0["counts"]?["served"]?.int64Value == 1
                })
            #expect(
                rowsByCampaign.contains {
                    $0["campaignID"]?.stringValue == "checkout-10-off" && $0["revenueMinor"]?.int64Value == 1000
                })
        }
        let missing = try BinaryRunner.run([
            "events", "export", "--db", fixture.root.appendingPathComponent("none.sqlite").path,
        ])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no database at"))
    }
}
