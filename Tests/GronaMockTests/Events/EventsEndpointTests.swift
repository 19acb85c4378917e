import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

// Over 400 lines on purpose: the events endpoint and its inspection API end to end (ingest, duplicates,
// listing, filters, paging, wait, delete), each section a few tests sharing the same fixtures.

/// A whole request the events endpoint refuses, with the status, code and a part of the message.
struct RefusedBatchCase: Sendable, CustomTestStringConvertible {
    var name: String
    var body: [UInt8]
    var contentType: String? = "application/json"
    var encoding: String?
    var status: Int
    var code: String
    var message: String
    var testDescription: String { "\(name) -> \(status) \(code)" }
}

/// A `GET /_mock/events` filter and the events it must list, in order.
struct EventFilterCase: Sendable, CustomTestStringConvertible {
    var query: String
    var expected: [String]
    var testDescription: String { query }
}

/// `POST /v1/mobile/events` as a whole (contract §7: limits, encodings, duplicates) and the inspection API
/// of contract §8 (`/_mock/events`, its paging and filters, `wait`, `summary`, `DELETE`).
@Suite("POST /v1/mobile/events and /_mock/events")
struct EventsEndpointTests {
    static let events: [JSONValue] = [
        SampleEvents.placementEvent("exposure", id: "e-1"), SampleEvents.purchase(id: "p-1"),
    ]

    static func body(_ events: [JSONValue] = events, workspaceKey: String = "shop") -> [UInt8] {
        EventsAPI.envelope(events, workspaceKey: workspaceKey).serialized()
    }

    /// The envelope with `field` removed (or replaced by `value`).
    static func body(setting field: String, to value: JSONValue?) -> [UInt8] {
        var object = EventsAPI.envelope(events).objectValue ?? JSONObject()
        object[field] = value
        return JSONValue.object(object).serialized()
    }

    static let oversizedEvent = SampleEvents.placementEvent(
        "exposure", id: "e-big", extra: [("note", .string(String(repeating: "x", count: 33 * 1024)))])

    static let refusedCases: [RefusedBatchCase] = {
        var rows = [
            RefusedBatchCase(
                name: "malformed JSON", body: Array(#"{"workspaceKey": "shop", "events": ["#.utf8), status: 400,
                code: "malformed_json", message: "not valid JSON"),
            RefusedBatchCase(
                name: "a JSON array", body: Array("[]".utf8), status: 400, code: "invalid_envelope",
                message: "JSON object"),
            RefusedBatchCase(
                name: "sentAt as a string", body: body(setting: "sentAt", to: "1764478800123"), status: 400,
                code: "invalid_envelope", message: "sentAt"),
            RefusedBatchCase(
                name: "sdk without version", body: body(setting: "sdk", to: ["platform": "ios"]), status: 400,
                code: "invalid_envelope", message: "sdk"),
            RefusedBatchCase(
                name: "events as an object", body: body(setting: "events", to: ["e-1": "exposure"]), status: 400,
                code: "invalid_envelope", message: "events"),
            RefusedBatchCase(
                name: "an unknown workspace", body: body(workspaceKey: "nope"), status: 404, code: "unknown_workspace",
                message: "\"nope\""),
            RefusedBatchCase(
                name: "501 events",
                body: body((0...500).map { SampleEvents.placementEvent("exposure", id: "e-\($0)") }), status: 413,
                code: "payload_too_large", message: "at most 500"),
            RefusedBatchCase(
                name: "an event over 32 KiB", body: body([events[0], oversizedEvent]), status: 413,
                code: "payload_too_large", message: "events[1]"),
            RefusedBatchCase(
                name: "a body over 512 KiB",
                body: body(setting: "padding", to: .string(String(repeating: " ", count: 520 * 1024))), status: 413,
                code: "payload_too_large", message: "limit of 524288 bytes"),
            RefusedBatchCase(
                name: "Content-Type: text/plain", body: body(), contentType: "text/plain", status: 415,
                code: "unsupported_media_type", message: "application/json"),
            RefusedBatchCase(
                name: "no Content-Type", body: body(), contentType: nil, status: 415, code: "unsupported_media_type",
                message: "application/json"),
            RefusedBatchCase(
                name: "Content-Encoding: br", body: body(), encoding: "br", status: 415, code: "unsupported_media_type",
                message: "br"),
            RefusedBatchCase(
                name: "bytes that are neither JSON nor gzip, labelled gzip", body: Array("\u{1}\u{2}not gzip".utf8),
                encoding: "gzip", status: 415, code: "unsupported_media_type",
                message: "Content-Encoding says gzip but the body is not valid gzip"),
            RefusedBatchCase(
                name: "a gzip body cut in half", body: Array(Gzip.compress(body()).prefix(40)), encoding: "gzip",
                status: 415, code: "unsupported_media_type", message: "gzip"),
            RefusedBatchCase(
                name: "a gzip bomb: 20 MB of zeros", body: Gzip.compress([UInt8](repeating: 0, count: 20 << 20)),
                encoding: "gzip", status: 413, code: "payload_too_large", message: "512 KiB"),
        ]
        for field in ["workspaceKey", "installID", "sdk", "app", "sentAt", "events"] {
            rows.append(
                RefusedBatchCase(
                    name: "the envelope without \(field)", body: body(setting: field, to: nil), status: 400,
                    code: "invalid_envelope", message: field))
        }
        return rows
    }()

    @Test(
        "a whole request that breaks a rule is refused with its status and code, and nothing is stored",
        arguments: refusedCases)
    func refusedBatch(_ row: RefusedBatchCase) throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let response = try EventsAPI.post(
                server.port, row.body, contentType: row.contentType, encoding: row.encoding)
            #expect(response.status == row.status)
            #expect(response.header("Content-Type") == "application/json")
            #expect(EventsAPI.errorCode(response) == row.code)
            let message = EventsAPI.errorMessage(response)
            #expect(message.contains(row.message), "message: \(message)")
            let stored = try EventsAPI.stored(server.port)
            #expect(stored.isEmpty)
            let rejected = try EventsAPI.rejected(server.port)
            #expect(rejected.isEmpty)
            let health = try EventsAPI.get(server.port, "/_mock/health")
            #expect(health.status == 200)
        }
    }

    @Test("exactly 500 events in one batch are accepted")
    func fiveHundredEvents() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let events = (0..<500).map { SampleEvents.placementEvent("exposure", id: "e-\($0)") }
            let (status, answer) = try EventsAPI.post(server.port, events: events)
            #expect(status == 200)
            #expect(answer["accepted"] == 500)
            let stored = try EventsAPI.stored(server.port)
            #expect(stored.count == 500)
        }
    }

    @Test("a Content-Length far over the limit is refused with 413 before the body is sent")
    func declaredBodyTooLarge() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let client = try RawClient(port: server.port)
            try client.send(
                "POST /v1/mobile/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(1024 * 1024)\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 413)
            #expect(EventsAPI.errorCode(response) == "payload_too_large")
            let health = try EventsAPI.get(server.port, "/_mock/health")
            #expect(health.status == 200)
        }
    }

    // MARK: - gzip

    @Test("a gzip batch is inflated and accepted")
    func gzipBatch() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let compressed = Gzip.compress(Self.body())
            let response = try EventsAPI.post(
                server.port, compressed, contentType: "application/json; charset=utf-8", encoding: "gzip")
            #expect(response.status == 200)
            let answer = try JSONParser().parse(response.body)
            #expect(answer["accepted"] == 2)
            #expect(answer["rejected"] == [])
            let stored = try EventsAPI.stored(server.port)
            #expect(EventsAPI.eventIDs(stored) == ["e-1", "p-1"])
        }
    }

    /// Events are stored from the batch's own text (issue 14), which must not change what is stored: a batch
    /// written by hand, with whitespace, newlines and escapes, is stored as the compact JSON of each event, one
    /// NDJSON line each, and a rejected event's JSON is compact too.
    @Test("an indented batch with escapes is stored as each event's compact JSON")
    func indentedBatchIsStoredCompact() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let event = SampleEvents.placementEvent(
                "exposure", id: "e-A", extra: [("label", "Frühling\n\"quoted\"\t/")])
            let rejected = SampleEvents.placementEvent("exposure", id: "bad", arm: "neither")
            var text = String(decoding: EventsAPI.envelope([event, rejected]).prettySerialized(), as: UTF8.self)
            // Escapes an SDK may write where the writer would not: \u0041 for "A", \u00fc for "ü", \/ for "/".
            text = text.replacingOccurrences(of: #""e-A""#, with: #""e-\u0041""#)
            text = text.replacingOccurrences(of: "ü", with: #"\u00fc"#)
            text = text.replacingOccurrences(of: #"\t/""#, with: #"\t\/""#)
            #expect(text.contains(#"\u0041"#) && text.contains(#"\u00fc"#) && text.contains(#"\/"#))
            #expect(text.contains("\n  "))
            let response = try EventsAPI.post(server.port, Array(text.utf8))
            #expect(response.status == 200)
            let answer = try JSONParser().parse(response.body)
            #expect(answer["accepted"] == 1)
            #expect(answer["rejected"]?.arrayValue?.count == 1)
            let (status, _, body) = try EventExportTests.export(server.port, "/_mock/events/export?workspace=shop")
            #expect(status == 200)
            let lines = body.split(separator: 0x0A).map { Array($0) }
            #expect(lines.count == 1)
            // The stored text up to its closing brace, where the export adds the server's fields.
            let compact = event.serialized()
            #expect(lines.first.map { Array($0.prefix(compact.count - 1)) } == Array(compact.dropLast()))
            #expect(try EventsAPI.rejected(server.port).first?["event"] == rejected)
        }
    }

    @Test("a gzip bomb of valid JSON (20 MB of spaces) is refused with 413 and the server stays healthy")
    func gzipBomb() throws {
        let fixture = try MockFixture.standard()
        // Whitespace is valid JSON, so only the inflated-size limit can refuse this body.
        let text = Array(EventsAPI.envelope(Self.events).serialized())
        let bomb = [UInt8](text.prefix(1)) + [UInt8](repeating: 0x20, count: 20 << 20) + text.dropFirst()
        let compressed = Gzip.compress(bomb, level: 9)
        #expect(compressed.count < 64 * 1024)
        try fixture.withServer { server in
            let response = try EventsAPI.post(server.port, compressed, encoding: "gzip")
            #expect(response.status == 413)
            #expect(EventsAPI.errorCode(response) == "payload_too_large")

            let health = try EventsAPI.get(server.port, "/_mock/health")
            #expect(health.status == 200)
            let (status, answer) = try EventsAPI.post(server.port, events: Self.events)
            #expect(status == 200)
            #expect(answer["accepted"] == 2)
        }
    }

    // MARK: - Duplicates

    @Test("duplicates within a batch and across batches are counted and stored once; eventIDs are per workspace")
    func duplicates() throws {
        let fixture = try MockFixture.standard()
        try fixture.writeWorkspace("other", MockFixture.workspace("other"))
        let first = SampleEvents.placementEvent("exposure", id: "dup", timestamp: EventsAPI.timestamp)
        let retry = SampleEvents.placementEvent("exposure", id: "dup", timestamp: EventsAPI.timestamp + 5)
        let other = SampleEvents.placementEvent("eligible", id: "b")
        let third = SampleEvents.placementEvent("served", id: "c")
        try fixture.withServer { server in
            let (_, one) = try EventsAPI.post(server.port, events: [first, other, retry])
            #expect(one["accepted"] == 2)
            #expect(one["duplicates"] == 1)
            #expect(one["rejected"] == [])
            let (_, two) = try EventsAPI.post(server.port, events: [retry, third, other])
            #expect(two["accepted"] == 1)
            #expect(two["duplicates"] == 2)

            let stored = try EventsAPI.stored(server.port)
            #expect(EventsAPI.eventIDs(stored) == ["dup", "b", "c"])
            #expect(stored.first?["timestamp"]?.int64Value == EventsAPI.timestamp)

            let body = EventsAPI.envelope([first], workspaceKey: "other").serialized()
            let response = try EventsAPI.post(server.port, body)
            let answer = try JSONParser().parse(response.body)
            #expect(answer["accepted"] == 1)
            #expect(answer["duplicates"] == 0)
        }
    }

    // MARK: - DELETE

    @Test("DELETE /_mock/events?workspace= clears that workspace's events (and rejected ones) and returns the count")
    func deleteWorkspaceEvents() throws {
        let fixture = try MockFixture.standard()
        try fixture.writeWorkspace("other", MockFixture.workspace("other"))
        try fixture.withServer { server in
            let batch = Self.events + [SampleEvents.placementEvent("served", id: "s-1"), "not an event"]
            let (_, answer) = try EventsAPI.post(server.port, events: batch)
            #expect(answer["accepted"] == 3)
            let otherBody = EventsAPI.envelope(Self.events, workspaceKey: "other").serialized()
            _ = try EventsAPI.post(server.port, otherBody)

            let (status, deleted) = try EventsAPI.json(server.port, "/_mock/events?workspace=shop", method: "DELETE")
            #expect(status == 200)
            #expect(deleted == ["deleted": 3])
            let stored = try EventsAPI.stored(server.port)
            #expect(stored.isEmpty)
            let rejected = try EventsAPI.rejected(server.port)
            #expect(rejected.isEmpty)
            let others = try EventsAPI.stored(server.port, workspace: "other")
            #expect(others.count == 2)

            let (_, again) = try EventsAPI.post(server.port, events: Self.events)
            #expect(again["accepted"] == 2)
            #expect(again["duplicates"] == 0)
        }
    }

    @Test("DELETE with a misspelt parameter refuses instead of clearing every workspace")
    func deleteWithUnknownParameter() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            _ = try EventsAPI.post(server.port, events: Self.events)
            let response = try EventsAPI.get(server.port, "/_mock/events?workspce=shop", method: "DELETE")
            let stored = try EventsAPI.stored(server.port)
            #expect(response.status == 400)
            #expect(EventsAPI.errorCode(response) == "invalid_query")
            #expect(stored.count == 2)

        }
    }

    // MARK: - Listing: paging and filters

    @Test("paging with limit and nextCursor, oldest first and newest first")
    func paging() throws {
        let fixture = try MockFixture.standard()
        let ids = ["a", "b", "c", "d", "e"]
        try fixture.withServer { server in
            let events = ids.map { SampleEvents.placementEvent("exposure", id: $0) }
            _ = try EventsAPI.post(server.port, events: events)

            let oldest = try pages(server.port, "workspace=shop&limit=2")
            #expect(oldest == [["a", "b"], ["c", "d"], ["e"]])
            let newest = try pages(server.port, "workspace=shop&limit=2&order=newest")
            #expect(newest == [["e", "d"], ["c", "b"], ["a"]])
            let exact = try pages(server.port, "workspace=shop&limit=5")
            #expect(exact == [ids])
            let byDefault = try pages(server.port, "workspace=shop&order=oldest")
            #expect(byDefault == [ids])
            let uneven = try pages(server.port, "workspace=shop&limit=4&order=newest")
            #expect(uneven == [["e", "d", "c", "b"], ["a"]])
        }
    }

    /// Follows `nextCursor` from the first page to the last, returning each page's event ids.
    private func pages(_ port: Int, _ query: String) throws -> [[String]] {
        var result: [[String]] = []
        var cursor: String?
        repeat {
            let page = try EventsAPI.listed(port, query + (cursor.map { "&cursor=\($0)" } ?? ""))
            result.append(EventsAPI.eventIDs(page.events))
            cursor = page.nextCursor
        } while cursor != nil && result.count < 10
        return result
    }

    static let t0 = EventsAPI.timestamp

    static let filterCases: [EventFilterCase] = [
        EventFilterCase(query: "type=exposure", expected: ["x-1", "x-2", "x-3", "x-4"]),
        EventFilterCase(query: "type=purchase", expected: ["p-1"]),
        EventFilterCase(query: "campaignID=home-hero", expected: ["el-1", "x-1", "x-2", "x-4"]),
        EventFilterCase(query: "campaignID=checkout-10-off", expected: ["x-3"]),
        EventFilterCase(query: "variantID=control", expected: ["x-2"]),
        EventFilterCase(query: "arm=control", expected: ["x-2"]),
        EventFilterCase(query: "arm=holdout", expected: ["x-4"]),
        EventFilterCase(query: "placement=checkout_above_pay", expected: ["x-3"]),
        EventFilterCase(query: "installID=install-b", expected: ["x-3", "x-4", "p-1"]),
        EventFilterCase(query: "installID=install-c", expected: []),
        EventFilterCase(query: "since=\(t0 + 20)", expected: ["x-2", "x-3", "x-4", "p-1"]),
        EventFilterCase(query: "until=\(t0 + 20)", expected: ["el-1", "x-1"]),
        EventFilterCase(query: "since=\(t0 + 10)&until=\(t0 + 40)", expected: ["x-1", "x-2", "x-3"]),
        EventFilterCase(query: "type=exposure&campaignID=home-hero&arm=treatment", expected: ["x-1"]),
        EventFilterCase(query: "type=exposure&installID=install-b&limit=1&order=newest", expected: ["x-4"]),
    ]

    @Test(
        "GET /_mock/events filters by type, campaign, variant, arm, placement, install and time",
        arguments: filterCases)
    func filters(_ row: EventFilterCase) throws {
        let fixture = try MockFixture.standard()
        let t0 = Self.t0
        let first: [JSONValue] = [
            SampleEvents.placementEvent("eligible", id: "el-1", timestamp: t0),
            SampleEvents.placementEvent("exposure", id: "x-1", timestamp: t0 + 10),
            SampleEvents.placementEvent(
                "exposure", id: "x-2", variantID: "control", arm: "control", timestamp: t0 + 20),
        ]
        let second: [JSONValue] = [
            SampleEvents.placementEvent(
                "exposure", id: "x-3", placement: "checkout_above_pay", screen: ["type": "checkout"],
                campaignID: "checkout-10-off", variantID: "ten-off", timestamp: t0 + 30),
            SampleEvents.placementEvent("exposure", id: "x-4", arm: "holdout", timestamp: t0 + 40),
            SampleEvents.purchase(id: "p-1", timestamp: t0 + 50),
        ]
        try fixture.withServer { server in
            let (_, one) = try EventsAPI.post(server.port, events: first, installID: "install-a")
            let (_, two) = try EventsAPI.post(server.port, events: second, installID: "install-b")
            #expect(one["accepted"] == 3)
            #expect(two["accepted"] == 3)
            let listed = try EventsAPI.listed(server.port, "workspace=shop&\(row.query)")
            #expect(EventsAPI.eventIDs(listed.events) == row.expected)
        }
    }

    /// Inspection queries that are refused, each with the parameter its message must name.
    static let invalidQueries: [(target: String, parameter: String)] = [
        ("/_mock/events?workspace=shop&typ=exposure", "typ"),
        ("/_mock/events?workspace=shop&limit=0", "limit"),
        ("/_mock/events?workspace=shop&limit=1001", "limit"),
        ("/_mock/events?workspace=shop&limit=ten", "limit"),
        ("/_mock/events?workspace=shop&order=sideways", "order"),
        ("/_mock/events?workspace=shop&since=yesterday", "since"),
        ("/_mock/events?workspace=shop&cursor=abc", "cursor"),
        ("/_mock/events/rejected?workspace=shop&page=2", "page"),
        ("/_mock/events/wait?workspace=shop&count=0", "count"),
        ("/_mock/events/wait?workspace=shop&count=1&timeoutMs=-5", "timeoutMs"),
        ("/_mock/events/wait?workspace=shop&count=1&limit=5", "limit"),
        ("/_mock/events/summary", "workspace"),
    ]

    @Test("bad inspection queries are 400 invalid_query naming the parameter (a table, put to one engine in process)")
    func invalidQuery() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            for row in Self.invalidQueries {
                let answer = try #require(server.exchange("GET \(row.target) HTTP/1.1\r\nHost: x\r\n\r\n"))
                let response = RawClient.Response(answer)
                #expect(response.status == 400, "\(row.target)")
                #expect(EventsAPI.errorCode(response) == "invalid_query", "\(row.target)")
                let message = EventsAPI.errorMessage(response)
                #expect(message.contains(row.parameter), "\(row.target): \(message)")
            }
        }
    }

    // MARK: - wait

    /// A gauge's value from `/_mock/metrics`.
    static func metric(_ port: Int, _ name: String) -> Double? {
        guard let response = try? fetch(port, "GET /_mock/metrics HTTP/1.1\r\nHost: x\r\n\r\n") else { return nil }
        let line = String(decoding: response.body, as: UTF8.self).split(separator: "\n").first {
            $0.hasPrefix(name + " ")
        }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    @Test("a wait sent before the events arrive answers complete with them, before its timeout")
    func waitCompletes() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let waiter = try RawClient(port: server.port, timeout: 15)
            let started = ContinuousClock.now
            try waiter.send("GET /_mock/events/wait?workspace=shop&count=3&timeoutMs=5000 HTTP/1.1\r\nHost: x\r\n\r\n")
            // The wait must be registered before the events arrive, or this would test the immediate answer.
            #expect(eventually { Self.metric(server.port, "grona_event_waits") == 1 })
            let (_, one) = try EventsAPI.post(server.port, events: Self.events)
            let (_, two) = try EventsAPI.post(server.port, events: [SampleEvents.placementEvent("served", id: "s-1")])
            #expect(one["accepted"] == 2)
            #expect(two["accepted"] == 1)

            let response = try waiter.readResponse()
            let elapsed = ContinuousClock.now - started
            #expect(response.status == 200)
            let body = try JSONParser().parse(response.body)
            #expect(body["complete"] == true)
            #expect(body["count"] == 3)
            #expect(EventsAPI.eventIDs(body["events"]?.arrayValue ?? []) == ["e-1", "p-1", "s-1"])
            #expect(elapsed < .milliseconds(5000))
        }
    }

    @Test("a wait counts on from commit to commit, and starts over when the workspace's events are deleted")
    func waitAcrossDeletion() throws {
        let fixture = try MockFixture.standard()
        try fixture.writeWorkspace("other", MockFixture.workspace("other"))
        try fixture.withServer { server in
            let waiter = try RawClient(port: server.port, timeout: 15)
            try waiter.send(
                "GET /_mock/events/wait?workspace=shop&type=served&count=3&timeoutMs=10000 HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(eventually { Self.metric(server.port, "grona_event_waits") == 1 })
            let served = { (id: String) in SampleEvents.placementEvent("served", id: id) }
            _ = try EventsAPI.post(server.port, events: [served("s-1"), served("s-2")])
            // Another workspace's events after them, so that the deleted ones are not the newest: their sequence
            // numbers are not reused, and only the deletion's generation tells the wait to count again.
            _ = try EventsAPI.post(server.port, EventsAPI.envelope(Self.events, workspaceKey: "other").serialized())
            let (status, _) = try EventsAPI.json(server.port, "/_mock/events?workspace=shop", method: "DELETE")
            #expect(status == 200)
            // Counted on from before the deletion, this third event would complete the wait with one event.
            _ = try EventsAPI.post(server.port, events: [served("s-3")])
            _ = try EventsAPI.post(server.port, events: Self.events + [served("s-4"), served("s-5")])

            let response = try waiter.readResponse()
            let body = try JSONParser().parse(response.body)
            #expect(body["complete"] == true)
            #expect(body["count"] == 3)
            #expect(EventsAPI.eventIDs(body["events"]?.arrayValue ?? []) == ["s-3", "s-4", "s-5"])
        }
    }

    @Test("a wait that cannot be satisfied answers complete: false with what there is at its timeout")
    func waitTimesOut() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            _ = try EventsAPI.post(server.port, events: Self.events)
            let (status, body) = try EventsAPI.json(
                server.port, "/_mock/events/wait?workspace=shop&type=purchase&count=2&timeoutMs=200")
            #expect(status == 200)
            #expect(body["complete"] == false)
            #expect(body["count"] == 1)
            #expect(EventsAPI.eventIDs(body["events"]?.arrayValue ?? []) == ["p-1"])
        }
    }

    // MARK: - summary

    /// One row of the summary, for comparison.
    struct SummaryRow: Equatable, CustomStringConvertible {
        var campaign: String
        var variant: String
        var arm: String
        var counts: [String: Int64]
        var purchases: Int64
        var revenue: Int64

        init(
            _ campaign: String, _ variant: String, _ arm: String, _ counts: [String: Int64], purchases: Int64 = 0,
            revenue: Int64 = 0
        ) {
            self.campaign = campaign
            self.variant = variant
            self.arm = arm
            self.counts = counts
            self.purchases = purchases
            self.revenue = revenue
        }

        init(_ json: JSONValue) {
            var counts: [String: Int64] = [:]
            for (type, count) in json["counts"]?.objectValue ?? JSONObject() { counts[type] = count.int64Value ?? -1 }
            self.init(
                json["campaignID"]?.stringValue ?? "?", json["variantID"]?.stringValue ?? "?",
                json["arm"]?.stringValue ?? "?", counts, purchases: json["purchases"]?.int64Value ?? -1,
                revenue: json["revenueMinor"]?.int64Value ?? -1)
        }

        var description: String { "\(campaign)/\(variant)/\(arm) \(counts) \(purchases) \(revenue)" }
    }

    @Test("the summary counts each type per campaign, variant and arm, attributes purchases, and keeps demo apart")
    func summary() throws {
        let fixture = try MockFixture.standard()
        let checkout: (String, String, String, String) -> JSONValue = { type, id, variant, arm in
            SampleEvents.placementEvent(
                type, id: id, placement: "checkout_above_pay", screen: ["type": "checkout"],
                campaignID: "checkout-10-off", variantID: variant, arm: arm)
        }
        let events: [JSONValue] = [
            SampleEvents.placementEvent("eligible", id: "1"),
            SampleEvents.placementEvent("exposure", id: "2"),
            SampleEvents.placementEvent("exposure", id: "3"),
            SampleEvents.placementEvent("action", id: "4", extra: [("action", SampleEvents.addAction())]),
            SampleEvents.placementEvent("exposure", id: "5", variantID: "control", arm: "control"),
            SampleEvents.placementEvent("exposure", id: "6", variantID: "control", arm: "holdout"),
            checkout("exposure", "7", "ten-off", "treatment"),
            checkout("served", "8", "control", "control"),
            SampleEvents.purchase(id: "p-1", totalMinor: 5_000),
            SampleEvents.purchase(id: "p-2", totalMinor: 3_000),
            SampleEvents.purchase(id: "p-3", totalMinor: 1_000, treatments: []),
            SampleEvents.placementEvent("exposure", id: "d-1", demo: true),
            SampleEvents.purchase(id: "d-2", totalMinor: 700, demo: true),
        ]
        try fixture.withServer { server in
            let (_, answer) = try EventsAPI.post(server.port, events: events)
            #expect(answer["accepted"] == .number(JSONNumber(events.count)))
            let (status, summary) = try EventsAPI.json(server.port, "/_mock/events/summary?workspace=shop")
            #expect(status == 200)
            #expect(summary["workspaceKey"] == "shop")
            let campaigns = (summary["campaigns"]?.arrayValue ?? []).map(SummaryRow.init)
            #expect(
                campaigns == [
                    SummaryRow("checkout-10-off", "control", "control", ["served": 1]),
                    SummaryRow(
                        "checkout-10-off", "ten-off", "treatment", ["exposure": 1], purchases: 2, revenue: 8_000),
                    SummaryRow("home-hero", "banner", "treatment", ["eligible": 1, "exposure": 2, "action": 1]),
                    SummaryRow("home-hero", "control", "control", ["exposure": 1]),
                    SummaryRow("home-hero", "control", "holdout", ["exposure": 1]),
                ])
            let demo = (summary["demo"]?.arrayValue ?? []).map(SummaryRow.init)
            #expect(
                demo == [
                    SummaryRow("checkout-10-off", "ten-off", "treatment", [:], purchases: 1, revenue: 700),
                    SummaryRow("home-hero", "banner", "treatment", ["exposure": 1]),
                ])
        }
    }

    @Test("a purchase that claims two treatments of one variant counts its revenue once")
    func summaryRevenueOncePerPurchase() throws {
        let fixture = try MockFixture.standard()
        let purchase = SampleEvents.purchase(
            id: "p-1", totalMinor: 5_000,
            treatments: [
                SampleEvents.treatment(), SampleEvents.treatment(type: "free_delivery", valueMilli: 0),
            ])
        try fixture.withServer { server in
            let (_, answer) = try EventsAPI.post(server.port, events: [purchase])
            #expect(answer["accepted"] == 1)
            let (_, summary) = try EventsAPI.json(server.port, "/_mock/events/summary?workspace=shop")
            let rows = (summary["campaigns"]?.arrayValue ?? []).map(SummaryRow.init)
            #expect(rows.first?.purchases == 1)
            #expect(
                rows == [SummaryRow("checkout-10-off", "ten-off", "treatment", [:], purchases: 1, revenue: 5_000)])

        }
    }
}
