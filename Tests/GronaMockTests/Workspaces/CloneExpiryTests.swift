import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// Clones made with `ttlSeconds` go by themselves, with their events, once that much real time has passed.
@Suite("Clones with a time to live")
struct CloneExpiryTests {
    static func clone(_ port: Int, _ key: String, ttl: String? = nil) throws -> RawClient.Response {
        let body = "{\"workspaceKey\":\"\(key)\"" + (ttl.map { ",\"ttlSeconds\":\($0)" } ?? "") + "}"
        return try fetch(port, Control.request("POST", "/_mock/workspaces/shop/clone", body: body))
    }

    static func listed(_ port: Int, _ key: String) throws -> JSONValue? {
        let list = try JSONParser().parse(try fetch(port, Control.request("GET", "/_mock/workspaces")).body)
        return list["workspaces"]?.arrayValue?.first { $0["workspaceKey"]?.stringValue == key }
    }

    static func served(_ port: Int, _ key: String) throws -> Bool {
        try fetch(port, "GET /v1/mobile/workspaces/\(key)/config HTTP/1.1\r\nHost: x\r\n\r\n").status == 200
    }

    @Test("a clone with ttlSeconds shows when it expires, and is removed with its events once the time passes")
    func expires() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let before = Int64(Date().timeIntervalSince1970 * 1000)
            // Two seconds: long enough for a slow machine to list the clone before it goes.
            let created = try Self.clone(server.port, "run-a", ttl: "2")
            #expect(created.status == 201)
            let answer = try JSONParser().parse(created.body)
            #expect(answer["ttlSeconds"]?.int64Value == 2)
            let listed = try #require(try Self.listed(server.port, "run-a"))
            let left = try #require(listed["expiresInMs"]?.int64Value)
            #expect(left > 0 && left <= 2000)
            let expiresAt = try #require(listed["expiresAt"]?.int64Value)
            #expect(expiresAt >= before && expiresAt <= before + 60_000)
            #expect(try Self.listed(server.port, "shop")?["expiresAt"] == nil, "only clones with a ttl expire")
            try WorkspaceResetTests.postEvents(server.port, "run-a", id: "run-a")
            try FaultAPI.add(
                server.port, #"{"endpoint":"grants","workspace":"run-a","kind":"status","status":503,"count":1}"#)
            #expect(try EventsAPI.stored(server.port, workspace: "run-a").count == 1)

            let configTarget = "GET /v1/mobile/workspaces/run-a/config HTTP/1.1\r\nHost: x\r\n\r\n"
            #expect(eventually { (try? fetch(server.port, configTarget).status) == 404 })
            #expect(try Self.listed(server.port, "run-a") == nil)
            #expect(eventually { (try? EventsAPI.stored(server.port, workspace: "run-a").isEmpty) == true })
            #expect(try EventsAPI.rejected(server.port, workspace: "run-a").isEmpty)
            #expect(try FaultAPI.rules(server.port).isEmpty)
            #expect(try Self.served(server.port, "shop"))
        }
    }

    @Test("expiry follows the real monotonic clock: moving the mock's clock by days removes nothing")
    func mockClockDoesNotExpire() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            #expect(try Self.clone(server.port, "run-a", ttl: "60").status == 201)
            #expect(try Self.clone(server.port, "run-b", ttl: "120").status == 201)
            #expect(try Self.clone(server.port, "run-c").status == 201)
            let moved = try fetch(
                server.port, Control.request("POST", "/_mock/clock", body: #"{"advanceMs":172800000}"#))
            #expect(moved.status == 200)
            let now = MonotonicClock.now()
            #expect(server.workspaces.expireClones(now: now) == [])
            #expect(try Self.served(server.port, "run-a"))

            let later = now + 61 * 1_000_000_000
            #expect(server.workspaces.expireClones(now: later) == ["run-a"])
            #expect(try Self.served(server.port, "run-a") == false)
            #expect(try Self.served(server.port, "run-b"))
            #expect(server.workspaces.expireClones(now: .max) == ["run-b"])
            #expect(try Self.served(server.port, "run-c"), "a clone without ttlSeconds stays")
        }
    }

    @Test("deleting or resetting a clone drops its expiry, so a new clone under the key is not removed by it")
    func expiryGoesWithTheClone() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server throws in
            #expect(try Self.clone(server.port, "run-a", ttl: "30").status == 201)
            #expect(try fetch(server.port, Control.request("DELETE", "/_mock/workspaces/run-a")).status == 200)
            #expect(try Self.clone(server.port, "run-a").status == 201)
            #expect(try Self.clone(server.port, "run-b", ttl: "30").status == 201)
            #expect(try fetch(server.port, Control.request("POST", "/_mock/reset?workspace=run-b")).status == 200)
            #expect(try Self.clone(server.port, "run-b").status == 201)
            #expect(server.workspaces.expireClones(now: .max) == [])
            #expect(try Self.served(server.port, "run-a"))
            #expect(try Self.served(server.port, "run-b"))
        }
    }

    @Test("a clone stays a clone, with its time to live, when a workspace is put in its place")
    func putKeepsTheClone() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            #expect(try Self.clone(server.port, "run-a", ttl: "30").status == 201)
            let document = MockFixture.workspace("run-a", bannerTitle: "Changed", secret: "sk_test_run_a_own")
            let put = try fetch(server.port, Control.request("PUT", "/_mock/workspaces/run-a", body: document))
            #expect(put.status == 200)
            let summary = try JSONParser().parse(put.body)
            #expect(summary["origin"]?.stringValue == "clone")
            #expect(summary["ttlSeconds"]?.int64Value == 30)
            #expect(server.workspaces.expireClones(now: .max) == ["run-a"])
        }
    }

    @Test(
        "a ttlSeconds that is not a whole number from 1 to 86400 is refused, and no clone is made",
        arguments: [
            "0", "-1", "86401", "1.5", "1e6", "86400.5", "\"60\"", "null", "true", "9223372036854775807",
            "9223372036854775808", "1e400", "[60]",
        ])
    func badTTL(ttl: String) throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let refused = try Self.clone(server.port, "run-a", ttl: ttl)
            #expect(refused.status == 400)
            let error = try JSONParser().parse(refused.body)["error"]
            #expect(error?["code"]?.stringValue == "invalid_request")
            #expect(error?["message"]?.stringValue?.contains("ttlSeconds must be a whole number") == true)
            #expect(try Self.served(server.port, "run-a") == false)
        }
    }

    @Test("the largest time to live is accepted")
    func longestTTL() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            #expect(try Self.clone(server.port, "run-a", ttl: "86400").status == 201)
            let left = try #require(try Self.listed(server.port, "run-a")?["expiresInMs"]?.int64Value)
            #expect(left > 86_300_000 && left <= 86_400_000)
        }
    }
}
