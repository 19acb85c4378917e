import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// `GET /_mock/events/violations` through the server: events posted to `POST /v1/mobile/events`, grants
/// fetched from `POST /v1/mobile/grants`, kills made through `/_mock/workspaces`.
@Suite("GET /_mock/events/violations")
struct ViolationsEndpointTests {
    static func post(_ port: Int, _ target: String, _ body: String, secret: String? = nil) throws -> RawClient.Response
    {
        var head = "POST \(target) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        head += "Content-Length: \(body.utf8.count)\r\n"
        if let secret { head += "Authorization: Bearer \(secret)\r\n" }
        return try fetch(port, head + "\r\n" + body)
    }

    /// Posts the stream's events in order, one batch per run of one install's events, all accepted.
    static func send(_ stream: ViolationStream, port: Int, sentAt: Int64 = EventsAPI.sentAt) throws {
        var batches: [(String, [JSONValue])] = []
        for item in stream.sent {
            if batches.last?.0 == item.installID {
                batches[batches.count - 1].1.append(item.event)
            } else {
                batches.append((item.installID, [item.event]))
            }
        }
        for (installID, events) in batches {
            let (status, body) = try EventsAPI.post(port, events: events, installID: installID, sentAt: sentAt)
            #expect(status == 200)
            #expect(body["accepted"]?.int64Value == Int64(events.count), "\(body)")
        }
    }

    static func violations(_ port: Int, workspace: String = "shop") throws -> (status: Int, body: JSONValue) {
        try EventsAPI.json(port, "/_mock/events/violations?workspace=\(workspace)")
    }

    static func rules(_ body: JSONValue) -> [String] {
        (body["violations"]?.arrayValue ?? []).map { $0["rule"]?.stringValue ?? "?" }
    }

    @Test("a correct SDK's stream, with the grants it fetched, has no violation")
    func correctStream() throws {
        let fixture = try MockFixture.standard()
        let stream = ViolationStream.correct()
        let customer = ViolationUnits.customer(offer: true)
        try fixture.withServer { server in
            let grants = try Self.post(
                server.port, "/v1/mobile/grants", "{\"customerID\":\"\(customer)\"}", secret: "sk_test_shop_secret")
            #expect(grants.status == 200)
            try Self.send(stream, port: server.port)
            let (status, body) = try Self.violations(server.port)
            #expect(status == 200)
            #expect(body == ["workspaceKey": "shop", "violations": [], "checkedEvents": 20])
        }
    }

    @Test("the same stream without the grant fetch shows the offer and claims it without a grant")
    func withoutGrants() throws {
        let fixture = try MockFixture.standard()
        let stream = ViolationStream.correct()
        let offerVisit = stream.sequences("exposure", visit: "v-4") + stream.sequences("served", visit: "v-4")
        let purchase = try #require(
            stream.sent.firstIndex { $0.event["type"]?.stringValue == "purchase" }.map { Int64($0 + 1) })
        try fixture.withServer { server in
            try Self.send(stream, port: server.port)
            let (status, body) = try Self.violations(server.port)
            #expect(status == 200)
            #expect(Self.rules(body) == Array(repeating: "offer_without_grant", count: 3))
            let events = (body["violations"]?.arrayValue ?? []).compactMap { $0["events"]?[0]?.int64Value }
            #expect(events == offerVisit + [purchase])
            let message = body["violations"]?[0]?["message"]?.stringValue ?? ""
            #expect(message.contains("no grant") && message.contains(ViolationUnits.customer(offer: true)))
        }
    }

    @Test("a kill through the control API is dated as it happens; a revival ends it")
    func killAndRevive() throws {
        let fixture = try MockFixture.standard()
        let banner = ViolationUnits.install(banner: true)
        let t0: Int64 = 1_764_478_900_000
        var before = ViolationStream()
        before.configRevision = nil
        for (index, type) in ["eligible", "anchor_visible", "exposure", "served"].enumerated() {
            before.add(type, install: banner, time: t0 - 1_000 + Int64(index))
        }
        try fixture.withServer { server in
            let port = server.port
            let frozen = try Self.post(port, "/_mock/clock", "{\"freeze\": true, \"at\": \(t0)}")
            #expect(frozen.status == 200)
            try Self.send(before, port: port, sentAt: t0)
            let kill = try Self.post(port, "/_mock/workspaces/shop/campaigns/home-hero/kill", "")
            #expect(kill.status == 200)
            let advanced = try Self.post(port, "/_mock/clock", "{\"advanceMs\": 10000}")
            #expect(advanced.status == 200)
            // Sent 10 s after the kill: a dismiss from inside the grace, and an action from past it (the clock is
            // frozen, so both are received at the instant of the revival below, which ends the kill).
            var after = ViolationStream()
            after.configRevision = nil
            after.idPrefix = "a-"
            after.add("dismiss", install: banner, time: t0 + 4_999)
            after.add("action", install: banner, time: t0 + 9_000)
            try Self.send(after, port: port, sentAt: t0 + 10_000)
            // Revived, then 10 s later a new visit is fine.
            let revive = try Self.post(port, "/_mock/workspaces/shop/campaigns/home-hero/revive", "")
            #expect(revive.status == 200)
            let later = try Self.post(port, "/_mock/clock", "{\"advanceMs\": 10000}")
            #expect(later.status == 200)
            var revived = ViolationStream()
            revived.configRevision = nil
            revived.idPrefix = "r-"
            for type in ["eligible", "anchor_visible", "exposure", "served"] {
                revived.add(type, install: banner, visit: "v-2", time: t0 + 20_000)
            }
            try Self.send(revived, port: port, sentAt: t0 + 20_000)

            let (status, body) = try Self.violations(port)
            #expect(status == 200)
            #expect(body["checkedEvents"] == 10)
            #expect(Self.rules(body) == ["event_after_kill"])
            let violation = body["violations"]?[0]
            #expect(violation?["events"] == [6])
            #expect(violation?["eventIDs"] == ["a-2"])
            #expect(violation?["message"]?.stringValue?.contains("9000 ms after its kill at \(t0)") == true)
        }
    }

    @Test("an event from the revision that killed the campaign is a violation whatever its time")
    func killedRevision() throws {
        let fixture = try MockFixture.standard()
        let banner = ViolationUnits.install(banner: true)
        try fixture.withServer { server in
            let kill = try Self.post(server.port, "/_mock/workspaces/shop/campaigns/home-hero/kill", "")
            let revision = try JSONParser().parse(kill.body)["revision"]?.int64Value
            var stream = ViolationStream()
            stream.configRevision = revision
            stream.add("eligible", install: banner)
            try Self.send(stream, port: server.port)
            let (_, body) = try Self.violations(server.port)
            #expect(Self.rules(body) == ["event_after_kill"])
            #expect(body["violations"]?[0]?["message"]?.stringValue?.contains("revision \(revision ?? 0)") == true)
        }
    }

    @Test("a kill by a file edit is dated when the edit was loaded, by the mock's clock")
    func killByFileEdit() throws {
        let fixture = try MockFixture.standard()
        let banner = ViolationUnits.install(banner: true)
        let t0: Int64 = 1_764_478_900_000
        try fixture.withServer { server in
            let port = server.port
            let frozen = try Self.post(port, "/_mock/clock", "{\"freeze\": true, \"at\": \(t0)}")
            #expect(frozen.status == 200)
            let killed = MockFixture.workspace("shop").replacingOccurrences(
                of: "\"status\": \"live\", \"priority\": 10", with: "\"status\": \"killed\", \"priority\": 10")
            #expect(killed != MockFixture.workspace("shop"))
            try fixture.writeWorkspace("shop", killed)
            let reloaded = try eventually {
                let (_, body) = try EventsAPI.json(port, "/_mock/workspaces/shop")
                return body["revision"] == 2
            }
            #expect(reloaded)
            let advanced = try Self.post(port, "/_mock/clock", "{\"advanceMs\": 60000}")
            #expect(advanced.status == 200)
            var stream = ViolationStream()
            stream.configRevision = nil
            // The edit was loaded with the clock frozen at t0: the kill is dated t0 exactly, and the grace
            // (5 s) ends at t0 + 5000.
            stream.add("eligible", install: banner, visit: "v-1", time: t0 + 4_999)
            stream.add("eligible", install: banner, visit: "v-2", time: t0 + 5_000)
            try Self.send(stream, port: port, sentAt: t0 + 60_000)
            let (_, body) = try Self.violations(port)
            #expect(Self.rules(body) == ["event_after_kill"])
            #expect(body["violations"]?[0]?["events"] == [2])
            let message = body["violations"]?[0]?["message"]?.stringValue ?? ""
            #expect(message.contains("after its kill at \(t0)"), "\(message)")
        }
    }

    @Test("more than one page of events is checked")
    func paging() throws {
        let fixture = try MockFixture.standard()
        let banner = ViolationUnits.install(banner: true)
        var stream = ViolationStream()
        for index in 0..<1_200 { stream.add("eligible", install: banner, visit: "v-\(index)") }
        stream.add("eligible", install: banner, visit: "v-0")
        let batches = stride(from: 0, to: stream.sent.count, by: 400).map {
            Array(stream.sent[$0..<min($0 + 400, stream.sent.count)].map(\.event))
        }
        try fixture.withServer { server in
            for events in batches {
                let (status, _) = try EventsAPI.post(server.port, events: events, installID: banner)
                #expect(status == 200)
            }
            let (_, body) = try Self.violations(server.port)
            #expect(body["checkedEvents"] == 1201)
            #expect(Self.rules(body) == ["repeated_in_visit"])
            #expect(body["violations"]?[0]?["events"] == [1, 1201])
        }
    }

    @Test(
        "a bad query is refused with the contract's error body",
        arguments: [
            ("/_mock/events/violations", 400, "invalid_query"),
            ("/_mock/events/violations?workspace=", 400, "invalid_query"),
            ("/_mock/events/violations?workspace=shop&rule=x", 400, "invalid_query"),
            ("/_mock/events/violations?workspace=shop&rule=", 400, "invalid_query"),
            ("/_mock/events/violations?workspace=shop&rule=,,", 400, "invalid_query"),
            ("/_mock/events/violations?workspace=shop&summary=true&limit=10", 400, "invalid_query"),
            ("/_mock/events/violations?workspace=nope", 404, "unknown_workspace"),
        ])
    func badQuery(target: String, status: Int, code: String) throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let response = try EventsAPI.get(server.port, target)
            #expect(response.status == status)
            #expect(EventsAPI.errorCode(response) == code)
        }
    }
}
