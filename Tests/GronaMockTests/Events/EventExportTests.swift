import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// `GET /_mock/events/export` (streamed NDJSON and CSV) and `GET /_mock/events/funnels` through the server.
/// The streaming itself (back-pressure, a client leaving) is in HTTPBodyStreamTests.
@Suite("GET /_mock/events/export and /_mock/events/funnels")
struct EventExportTests {
    /// A streamed GET: its status, headers and the chunked body put together.
    static func export(_ port: Int, _ target: String) throws -> (status: Int, type: String?, body: [UInt8]) {
        let client = try RawClient(port: port)
        try client.send("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readResponse(forHead: true)
        guard head.header("Transfer-Encoding") == "chunked" else { return (head.status, nil, []) }
        return (head.status, head.header("Content-Type"), try client.readChunkedBody())
    }

    /// Every listed event of `shop` (filtered by `query`), as `GET /_mock/events` gives them.
    static func listed(_ port: Int, _ query: String = "") throws -> [JSONValue] {
        var events: [JSONValue] = []
        var cursor: String?
        repeat {
            let target = "/_mock/events?workspace=shop&limit=7" + query + (cursor.map { "&cursor=\($0)" } ?? "")
            let (_, page) = try EventsAPI.json(port, target)
            events += page["events"]?.arrayValue ?? []
            cursor = page["nextCursor"]?.stringValue
        } while cursor != nil
        return events
    }

    @Test("the NDJSON export is the listing, event for event and byte for byte, filters included")
    func ndjsonIsTheListing() throws {
        let fixture = try MockFixture.standard()
        let stream = ViolationStream.correct()
        try fixture.withServer { server in
            try ViolationsEndpointTests.send(stream, port: server.port)
            for query in ["", "&type=served", "&installID=\(ViolationUnits.install(banner: false))"] {
                let (status, type, body) = try Self.export(server.port, "/_mock/events/export?workspace=shop" + query)
                #expect(status == 200)
                #expect(type == "application/x-ndjson")
                let lines = body.split(separator: 0x0A).map { Array($0) }
                let expected = try Self.listed(server.port, query).map { $0.serialized() }
                #expect(!expected.isEmpty)
                #expect(lines == expected, "query \(query)")
            }
        }
    }

    @Test("the CSV export has the header and one row per event; a bad format is refused")
    func csv() throws {
        let fixture = try MockFixture.standard()
        let stream = ViolationStream.correct()
        try fixture.withServer { server in
            try ViolationsEndpointTests.send(stream, port: server.port)
            let (status, type, body) = try Self.export(server.port, "/_mock/events/export?workspace=shop&format=csv")
            #expect(status == 200)
            #expect(type?.hasPrefix("text/csv") == true)
            let lines = String(decoding: body, as: UTF8.self).split(separator: "\n")
            #expect(lines.first == Substring(EventExport.csvColumns.joined(separator: ",")))
            #expect(lines.count == stream.sent.count + 1)
            #expect(lines[1].hasPrefix("1,shop,e-1,eligible,"))
            let refused = try EventsAPI.get(server.port, "/_mock/events/export?workspace=shop&format=xml")
            #expect(refused.status == 400)
            #expect(EventsAPI.errorCode(refused) == "invalid_query")
        }
    }

    @Test("funnels: each step's count and share of the one before, per campaign, variant and arm")
    func funnels() throws {
        let fixture = try MockFixture.standard()
        let stream = ViolationStream.correct()
        try fixture.withServer { server in
            try ViolationsEndpointTests.send(stream, port: server.port)
            let (status, body) = try EventsAPI.json(
                server.port, "/_mock/events/funnels?workspace=shop&campaignID=home-hero")
            #expect(status == 200)
            let rows = body["funnels"]?.arrayValue ?? []
            let banner = rows.first { $0["variantID"] == "banner" && $0["arm"] == "treatment" }
            // Two banner visits, each eligible → anchor_visible → exposure → served → action.
            let counts = banner?["steps"]?.arrayValue?.compactMap { $0["count"]?.int64Value }
            #expect(counts == [2, 2, 2, 2, 2])
            #expect(banner?["steps"]?[0]?["rate"] == .null)
            #expect(banner?["steps"]?[1]?["rate"]?.numberValue?.double == 1)
            let control = rows.first { $0["arm"] == "control" }
            #expect(control?["steps"]?.arrayValue?.compactMap { $0["count"]?.int64Value } == [1, 1, 0, 0, 0])
            #expect(control?["steps"]?[2]?["rate"]?.numberValue?.double == 0)
            #expect(control?["steps"]?[3]?["rate"] == .null)
            #expect(rows.allSatisfy { $0["campaignID"] == "home-hero" })
            #expect(body["demo"] == [])
        }
    }
}
