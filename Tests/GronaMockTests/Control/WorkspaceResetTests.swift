import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// `POST /_mock/reset?workspace=KEY`: one test run cleans up after itself on a server other runs share.
@Suite("Resetting one workspace")
struct WorkspaceResetTests {
    /// Posts one valid event and one the server rejects (an unknown placement) to `workspace`.
    static func postEvents(_ port: Int, _ workspace: String, id: String) throws {
        let events = [
            SampleEvents.placementEvent("exposure", id: "\(id)-ok"),
            SampleEvents.placementEvent("exposure", id: "\(id)-bad", placement: "home_topp"),
        ]
        let answer = try EventsAPI.post(port, EventsAPI.envelope(events, workspaceKey: workspace).serialized())
        let body = try JSONParser().parse(answer.body)
        #expect(body["accepted"]?.int64Value == 1, "\(answer.text)")
        #expect(body["rejected"]?.arrayValue?.count == 1)
    }

    static func clone(_ port: Int, _ key: String) throws -> String {
        let created = try fetch(
            port, Control.request("POST", "/_mock/workspaces/shop/clone", body: "{\"workspaceKey\":\"\(key)\"}"))
        #expect(created.status == 201)
        return try #require(try JSONParser().parse(created.body)["secretKey"]?.stringValue)
    }

    static func reset(_ port: Int, _ query: String) throws -> (status: Int, body: JSONValue) {
        let response = try fetch(port, Control.request("POST", "/_mock/reset\(query)"))
        return (response.status, try JSONParser().parse(response.body))
    }

    @Test("a clone's reset removes it with its events, rejected events, fault rules and grants; other runs keep theirs")
    func cloneReset() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            var secrets: [String: String] = [:]
            for key in ["run-a", "run-b"] {
                secrets[key] = try Self.clone(server.port, key)
                try Self.postEvents(server.port, key, id: key)
                try FaultAPI.add(
                    server.port,
                    "{\"endpoint\":\"config\",\"workspace\":\"\(key)\",\"kind\":\"status\",\"status\":503,\"count\":1}")
            }
            try FaultAPI.add(server.port, #"{"endpoint":"events","kind":"status","status":429,"count":5}"#)
            let customer = FaultAPI.offerCustomer
            for key in ["run-a", "run-b"] {
                let granted = try fetch(
                    server.port,
                    GrantsEndpointTests.request("{\"customerID\":\"\(customer)\"}", secret: secrets[key]))
                #expect(granted.status == 200)
            }
            server.clock.freeze(atMilliseconds: 1_764_478_800_000)

            let (status, body) = try Self.reset(server.port, "?workspace=run-a")
            #expect(status == 200)
            #expect(body["reset"]?.boolValue == true)
            #expect(body["workspaceKey"]?.stringValue == "run-a")
            #expect(body["served"]?.boolValue == false)
            #expect(body["events"]?.int64Value ?? 0 >= 1)
            #expect(body["faults"]?.int64Value == 1)

            let gone = try fetch(server.port, "GET /v1/mobile/workspaces/run-a/config HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(gone.status == 404)
            #expect(try EventsAPI.stored(server.port, workspace: "run-a").isEmpty)
            #expect(try EventsAPI.rejected(server.port, workspace: "run-a").isEmpty)
            #expect(try EventsAPI.stored(server.port, workspace: "run-b").count == 1)
            #expect(try EventsAPI.rejected(server.port, workspace: "run-b").count == 1)
            let rules = try FaultAPI.rules(server.port)
            #expect(rules.map { $0["workspace"]?.stringValue ?? "all" }.sorted() == ["all", "run-b"])
            #expect(
                !server.grants.wasIssued(workspace: "run-a", customerID: customer, campaignID: "checkout-10-off"))
            #expect(server.grants.wasIssued(workspace: "run-b", customerID: customer, campaignID: "checkout-10-off"))
            // The clock is the server's, not the run's: it stays frozen.
            #expect(server.clock.snapshot().frozen)
            #expect(server.clock.nowMilliseconds() == 1_764_478_800_000)

            // The key is free again, for a clone of the next run.
            _ = try Self.clone(server.port, "run-a")
            #expect(try EventsAPI.stored(server.port, workspace: "run-a").isEmpty)
        }
    }

    @Test("a file-backed workspace's reset serves its file again and leaves other workspaces' changes alone")
    func fileReset() throws {
        let fixture = try MockFixture.standard()
        try fixture.writeWorkspace("mall", MockFixture.workspace("mall", secret: "sk_test_mall_secret"))
        try fixture.withServer { server in
            for key in ["shop", "mall"] {
                let killed = try fetch(
                    server.port, Control.request("POST", "/_mock/workspaces/\(key)/campaigns/home-hero/kill"))
                #expect(killed.status == 200)
            }
            let killedRevision = try Control.configuration(server.port, "shop").revision
            try Self.postEvents(server.port, "shop", id: "shop")
            try Self.postEvents(server.port, "mall", id: "mall")

            let (status, body) = try Self.reset(server.port, "?workspace=shop")
            #expect(status == 200)
            #expect(body["served"]?.boolValue == true)
            let restored = try Control.configuration(server.port, "shop")
            #expect(restored.payload["campaigns"]?[0]?["status"]?.stringValue == "live")
            #expect(restored.revision > killedRevision)
            #expect(body["revision"]?.int64Value == restored.revision)
            let origin = try JSONParser().parse(
                try fetch(server.port, Control.request("GET", "/_mock/workspaces/shop")).body)
            #expect(origin["origin"]?.stringValue == "file")
            #expect(try EventsAPI.stored(server.port, workspace: "shop").isEmpty)

            let mall = try Control.configuration(server.port, "mall")
            #expect(mall.payload["campaigns"]?[0]?["status"]?.stringValue == "killed")
            #expect(try EventsAPI.stored(server.port, workspace: "mall").count == 1)

            // A workspace without run-time changes is reset too: its events and faults go, its file stays.
            let again = try Self.reset(server.port, "?workspace=shop")
            #expect(again.status == 200)
            #expect(again.body["revision"]?.int64Value == restored.revision)
        }
    }

    @Test(
        "an unknown workspace is 404 and an unknown or empty parameter 400, and neither resets anything",
        arguments: [
            ("?workspace=nope", 404, "unknown_workspace"),
            ("?workspce=shop", 400, "invalid_query"),
            ("?workspace=", 400, "invalid_query"),
            ("?workspace=shop&workspace=run-a", 400, "invalid_query"),
            ("?all=true", 400, "invalid_query"),
        ])
    func refused(query: String, status: Int, code: String) throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            try Self.postEvents(server.port, "shop", id: "shop")
            try FaultAPI.add(
                server.port, #"{"endpoint":"config","workspace":"shop","kind":"status","status":503,"count":1}"#)
            let response = try fetch(server.port, Control.request("POST", "/_mock/reset\(query)"))
            #expect(response.status == status)
            #expect(try JSONParser().parse(response.body)["error"]?["code"]?.stringValue == code)
            #expect(try EventsAPI.stored(server.port, workspace: "shop").count == 1)
            #expect(try FaultAPI.rules(server.port).count == 1)
        }
    }

    @Test("the global reset still resets everything, the clock included")
    func globalReset() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            _ = try Self.clone(server.port, "run-a")
            try Self.postEvents(server.port, "shop", id: "shop")
            try Self.postEvents(server.port, "run-a", id: "run-a")
            try FaultAPI.add(server.port, #"{"endpoint":"config","kind":"status","status":503,"count":1}"#)
            server.clock.freeze(atMilliseconds: 1_000)
            let (status, body) = try Self.reset(server.port, "")
            #expect(status == 200)
            #expect(body == ["reset": true])
            #expect(try EventsAPI.stored(server.port, workspace: "shop").isEmpty)
            #expect(try EventsAPI.stored(server.port, workspace: "run-a").isEmpty)
            #expect(try FaultAPI.rules(server.port).isEmpty)
            #expect(!server.clock.snapshot().frozen)
            #expect(server.workspaces.workspaceKeys == ["shop"])
        }
    }
}

@Suite("GET /_mock/workspaces shows files that failed to load")
struct WorkspaceListErrorsTests {
    static func listing(_ port: Int) throws -> JSONValue {
        try JSONParser().parse(try fetch(port, Control.request("GET", "/_mock/workspaces")).body)
    }

    @Test("a broken edit is listed with its first error, beside the last good revision it keeps serving")
    func brokenEdit() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            #expect(try Self.listing(server.port)["errors"] == [])
            let broken = MockFixture.workspace("shop").replacingOccurrences(of: "home_top", with: "home_topp")
            try fixture.writeWorkspace("shop", broken)
            var listed = JSONValue.null
            #expect(
                eventually {
                    listed = (try? Self.listing(server.port)) ?? .null
                    return listed["errors"]?.arrayValue?.isEmpty == false
                })
            let error = try #require(listed["errors"]?[0])
            #expect(error["file"]?.stringValue?.hasSuffix("/shop.json") == true)
            #expect(error["message"]?.stringValue?.contains(#"unknown placement "home_topp""#) == true)
            #expect(listed["workspaces"]?[0]?["workspaceKey"]?.stringValue == "shop", "the last good revision")

            try fixture.writeWorkspace("shop", MockFixture.workspace("shop"))
            #expect(eventually { (try? Self.listing(server.port))?["errors"] == [] })
        }
    }
}
