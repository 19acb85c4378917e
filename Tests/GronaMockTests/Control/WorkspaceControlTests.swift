import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// Requests for the control API, on a fresh connection each.
enum Control {
    static func request(_ method: String, _ target: String, body: String = "", token: String? = nil) -> String {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n"
        if !body.isEmpty { head += "Content-Type: application/json\r\n" }
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        return head + "\r\n" + body
    }

    /// The served configuration's revision and payload, verified with the keys the server publishes.
    static func configuration(_ port: Int, _ key: String) throws -> (
        revision: Int64, payload: JSONValue, kids: [String]
    ) {
        let response = try fetch(port, "GET /v1/mobile/workspaces/\(key)/config HTTP/1.1\r\nHost: x\r\n\r\n")
        let jwks = try JSONParser().parse(
            try fetch(port, "GET /v1/mobile/workspaces/\(key)/jwks.json HTTP/1.1\r\nHost: x\r\n\r\n").body)
        var keys: [String: P256PublicKey] = [:]
        for jwk in jwks["keys"]?.arrayValue ?? [] {
            keys[jwk["kid"]?.stringValue ?? ""] = try P256PublicKey(
                x: Base64.urlDecode(jwk["x"]?.stringValue ?? "") ?? [],
                y: Base64.urlDecode(jwk["y"]?.stringValue ?? "") ?? [])
        }
        let (payload, checks) = try JSONVerifierShim.verify(response.body, keys: keys)
        let parsed = try JSONParser().parse(payload)
        return (parsed["revision"]?.int64Value ?? -1, parsed, checks)
    }
}

/// Every signature must verify; returns the payload and the kids that signed.
enum JSONVerifierShim {
    static func verify(_ document: [UInt8], keys: [String: P256PublicKey]) throws -> ([UInt8], [String]) {
        let (payload, checks) = try JWSVerifier.verifyGeneral(document, keys: keys, type: .configuration)
        guard checks.allSatisfy({ $0.isValid }) else {
            throw RawClient.Failure(
                description: "a signature failed: \(checks.map { "\($0.kid ?? "?") \($0.result)" })")
        }
        return (payload, checks.compactMap { $0.kid })
    }
}

@Suite("Workspaces at run time")
struct WorkspaceControlTests {
    @Test("kill and revive each produce a new revision that verifies, with the campaign's status changed")
    func killAndRevive() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let before = try Control.configuration(server.port, "shop")
            let killed = try fetch(
                server.port, Control.request("POST", "/_mock/workspaces/shop/campaigns/home-hero/kill"))
            #expect(killed.status == 200)
            let afterKill = try Control.configuration(server.port, "shop")
            #expect(afterKill.revision == before.revision + 1)
            #expect(afterKill.payload["campaigns"]?[0]?["status"]?.stringValue == "killed")
            let revived = try fetch(
                server.port, Control.request("POST", "/_mock/workspaces/shop/campaigns/home-hero/revive"))
            #expect(revived.status == 200)
            let afterRevive = try Control.configuration(server.port, "shop")
            #expect(afterRevive.revision == afterKill.revision + 1)
            #expect(afterRevive.payload["campaigns"]?[0]?["status"]?.stringValue == "live")
            let unknown = try fetch(server.port, Control.request("POST", "/_mock/workspaces/shop/campaigns/nope/kill"))
            #expect(unknown.status == 404)
            #expect(unknown.text.contains("unknown_campaign"))
        }
    }

    @Test(
        "rotating config keys makes the next key current; rotating grant keys signs grants with the new key, JWKS holds both"
    )
    func rotate() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let before = try Control.configuration(server.port, "shop")
            #expect(before.kids == ["cfg-1", "cfg-2"])
            let rotated = try fetch(
                server.port, Control.request("POST", "/_mock/workspaces/shop/rotate", body: #"{"keys":"config"}"#))
            #expect(rotated.status == 200)
            let after = try Control.configuration(server.port, "shop")
            #expect(after.revision == before.revision + 1)
            #expect(after.kids == ["cfg-2", "cfg-1"])

            let grantRotation = try fetch(
                server.port, Control.request("POST", "/_mock/workspaces/shop/rotate", body: #"{"keys":"grant"}"#))
            #expect(grantRotation.status == 200)
            let customer = GrantsEndpointTests.customer(offer: true)
            let grants = try fetch(server.port, GrantsEndpointTests.request("{\"customerID\":\"\(customer)\"}"))
            let token = try #require(try JSONParser().parse(grants.body)["grants"]?[0]?.stringValue)
            let header = try JSONParser().parse(Base64.urlDecode(token.split(separator: ".")[0]) ?? [])
            #expect(header["kid"]?.stringValue == "grt-2")
            let jwks = try JSONParser().parse(
                try fetch(server.port, "GET /v1/mobile/workspaces/shop/jwks.json HTTP/1.1\r\nHost: x\r\n\r\n").body)
            let kids = jwks["keys"]?.arrayValue?.compactMap { $0["kid"]?.stringValue } ?? []
            #expect(kids.contains("grt-1") && kids.contains("grt-2"))
            let keys = try fixture.publicKeys()
            _ = try GrantVerifier.verify(
                token, keys: ["grt-2": try #require(keys["grt-2"])], audience: "shop", now: server.clock.nowSeconds())
        }
    }

    @Test("rotating a single key generates the next one, in memory")
    func rotateSingle() throws {
        let fixture = try MockFixture.standard()
        try fixture.writeWorkspace(
            "solo", MockFixture.workspace("solo", configKeys: ["cfg-1"], secret: "sk_test_solo_secret"))
        try fixture.withServer { server in
            _ = try fetch(
                server.port, Control.request("POST", "/_mock/workspaces/solo/rotate", body: #"{"keys":"config"}"#))
            let after = try Control.configuration(server.port, "solo")
            #expect(after.kids.count == 2)
            #expect(after.kids.last == "cfg-1")
            #expect(after.kids.first?.hasPrefix("solo-config-rotated-") == true)
        }
    }

    @Test("PUT validates like a file; allowInvalid serves a broken workspace; reset brings the file back")
    func putAndReset() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let broken = MockFixture.workspace("shop").replacingOccurrences(of: "home_top", with: "home_topp")
            let refused = try fetch(server.port, Control.request("PUT", "/_mock/workspaces/shop", body: broken))
            #expect(refused.status == 422)
            #expect(refused.text.contains(#"campaigns[0].placement: unknown placement \"home_topp\""#))
            let before = try fetch(server.port, "GET /v1/mobile/workspaces/shop/config HTTP/1.1\r\nHost: x\r\n\r\n")

            let served = try fetch(
                server.port, Control.request("PUT", "/_mock/workspaces/shop?allowInvalid=true", body: broken))
            #expect(served.status == 200)
            let invalid = try Control.configuration(server.port, "shop")
            #expect(invalid.payload["campaigns"]?[0]?["placement"]?.stringValue == "home_topp")

            let reset = try fetch(server.port, Control.request("POST", "/_mock/reset"))
            #expect(reset.status == 200)
            let restored = try Control.configuration(server.port, "shop")
            #expect(restored.payload["campaigns"]?[0]?["placement"]?.stringValue == "home_top")
            #expect(restored.revision > invalid.revision)
            #expect(before.status == 200)
        }
    }

    @Test("two clones used at once keep their events apart; deleting a clone deletes its events")
    func clones() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            var secrets: [String] = []
            for key in ["run-a", "run-b"] {
                let created = try fetch(
                    server.port,
                    Control.request("POST", "/_mock/workspaces/shop/clone", body: "{\"workspaceKey\":\"\(key)\"}"))
                #expect(created.status == 201)
                secrets.append(try #require(try JSONParser().parse(created.body)["secretKey"]?.stringValue))
            }
            #expect(secrets[0] != secrets[1])
            let cloneConfig = try Control.configuration(server.port, "run-a")
            #expect(cloneConfig.payload["workspaceKey"]?.stringValue == "run-a")

            for (key, count) in [("run-a", 2), ("run-b", 3)] {
                let events = (0..<count).map { index in
                    #"{"eventID":"e\#(index)","type":"served","timestamp":1764478799000,"placement":"home_top","#
                        + #""screen":{"type":"home"},"visitID":"v","campaignID":"home-hero","variantID":"banner","arm":"treatment"}"#
                }
                let body =
                    #"{"workspaceKey":"\#(key)","installID":"i","sdk":{"platform":"ios","version":"1"},"#
                    + #""app":{"id":"a","version":"1"},"sentAt":1764478800000,"events":[\#(events.joined(separator: ","))]}"#
                let posted = try fetch(server.port, Control.request("POST", "/v1/mobile/events", body: body))
                #expect(try JSONParser().parse(posted.body)["accepted"]?.int64Value == Int64(count))
            }
            for (key, count) in [("run-a", 2), ("run-b", 3)] {
                let listed = try fetch(server.port, "GET /_mock/events?workspace=\(key) HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try JSONParser().parse(listed.body)["events"]?.arrayValue?.count == count)
            }
            let grants = try fetch(
                server.port,
                GrantsEndpointTests.request("{\"customerID\":\"c\"}", secret: secrets[1]))
            #expect(grants.status == 200)

            let deleted = try fetch(server.port, Control.request("DELETE", "/_mock/workspaces/run-a"))
            #expect(deleted.status == 200)
            #expect(deleted.text.contains("\"events\":2"))
            let gone = try fetch(server.port, "GET /v1/mobile/workspaces/run-a/config HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(gone.status == 404)
            let remaining = try fetch(server.port, "GET /_mock/events?workspace=run-b HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try JSONParser().parse(remaining.body)["events"]?.arrayValue?.count == 3)
            let fileBacked = try fetch(server.port, Control.request("DELETE", "/_mock/workspaces/shop"))
            #expect(fileBacked.status == 409)
        }
    }
}

@Suite("Clock and admin token")
struct ClockAndAdminTests {
    @Test("the clock can be offset, advanced, frozen and reset, and grant windows follow it")
    func clock() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let frozen = try fetch(
                server.port, Control.request("POST", "/_mock/clock", body: #"{"freeze":true,"at":1764478800000}"#))
            #expect(try JSONParser().parse(frozen.body)["now"]?.int64Value == 1_764_478_800_000)
            #expect(try JSONParser().parse(frozen.body)["frozen"]?.boolValue == true)
            let advanced = try fetch(server.port, Control.request("POST", "/_mock/clock", body: #"{"advanceMs":5000}"#))
            #expect(try JSONParser().parse(advanced.body)["now"]?.int64Value == 1_764_478_805_000)
            let grants = try fetch(
                server.port,
                GrantsEndpointTests.request("{\"customerID\":\"\(GrantsEndpointTests.customer(offer: true))\"}"))
            #expect(try JSONParser().parse(grants.body)["serverTime"]?.int64Value == 1_764_478_805)
            let bad = try fetch(server.port, Control.request("POST", "/_mock/clock", body: #"{"advanceMs":"soon"}"#))
            #expect(bad.status == 400)
            _ = try fetch(server.port, Control.request("POST", "/_mock/clock", body: #"{"reset":true}"#))
            let now = try JSONParser().parse(try fetch(server.port, Control.request("GET", "/_mock/clock")).body)
            #expect(abs((now["now"]?.int64Value ?? 0) - Int64(Date().timeIntervalSince1970 * 1000)) < 60_000)
        }
    }

    @Test("with an admin token, /_mock needs it (health does not) and the Grona endpoints do not")
    func adminToken() throws {
        let fixture = try MockFixture.standard()
        var configuration = fixture.configuration()
        configuration.adminToken = "s3cret-admin"
        let server = try GronaMockServer.start(configuration, logger: .silent)
        defer {
            server.shutdown()
            server.wait()
        }
        #expect(try fetch(server.port, Control.request("GET", "/_mock/health")).status == 200)
        let refused = try fetch(server.port, Control.request("GET", "/_mock/events"))
        #expect(refused.status == 401)
        #expect(refused.text.contains("admin_token_required"))
        #expect(try fetch(server.port, Control.request("GET", "/_mock/events", token: "wrong")).status == 401)
        #expect(try fetch(server.port, Control.request("GET", "/_mock/events", token: "s3cret-admin")).status == 200)
        #expect(try fetch(server.port, Control.request("POST", "/_mock/reset")).status == 401)
        #expect(
            try fetch(server.port, "GET /v1/mobile/workspaces/shop/config HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
    }
}

@Suite("Control API robustness")
struct ControlRobustnessTests {
    @Test("clock values that could overflow are refused, and the server keeps serving")
    func clockBounds() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            for body in [
                #"{"offsetMs":9223372036854775000}"#, #"{"advanceMs":-9223372036854775000}"#,
                #"{"freeze":true,"at":-9223372036854775000}"#,
            ] {
                let response = try fetch(server.port, Control.request("POST", "/_mock/clock", body: body))
                #expect(response.status == 400)
                #expect(response.text.contains("invalid_clock"))
            }
            for _ in 0..<3 {
                let advanced = try fetch(
                    server.port, Control.request("POST", "/_mock/clock", body: #"{"advanceMs":3155760000000}"#))
                #expect(advanced.status == 200)
            }
            #expect(try fetch(server.port, Control.request("GET", "/_mock/health")).status == 200)
        }
    }

    @Test("a workspace's secret keys are masked in GET /_mock/workspaces/{key}")
    func secretsMasked() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let response = try fetch(server.port, Control.request("GET", "/_mock/workspaces/shop"))
            #expect(response.status == 200)
            #expect(!response.text.contains("sk_test_shop_secret"))
            #expect(try JSONParser().parse(response.body)["workspace"]?["secretKeys"] == ["[redacted]"])
        }
    }

    @Test("--max-events keeps the newest events and drops the oldest")
    func maxEvents() throws {
        let fixture = try MockFixture.standard()
        var configuration = fixture.configuration()
        configuration.maxEvents = 5
        let server = try GronaMockServer.start(configuration, logger: .silent)
        defer {
            server.shutdown()
            server.wait()
        }
        for batch in 0..<4 {
            let events = (0..<3).map { index in
                #"{"eventID":"b\#(batch)-e\#(index)","type":"served","timestamp":1,"placement":"home_top","#
                    + #""screen":{"type":"home"},"visitID":"v","campaignID":"home-hero","variantID":"banner","arm":"treatment"}"#
            }
            let body =
                #"{"workspaceKey":"shop","installID":"i","sdk":{"platform":"ios","version":"1"},"#
                + #""app":{"id":"a","version":"1"},"sentAt":1,"events":[\#(events.joined(separator: ","))]}"#
            #expect(try fetch(server.port, Control.request("POST", "/v1/mobile/events", body: body)).status == 200)
        }
        let listed = try JSONParser().parse(
            try fetch(server.port, Control.request("GET", "/_mock/events?limit=100")).body)
        let ids = listed["events"]?.arrayValue?.compactMap { $0["eventID"]?.stringValue } ?? []
        #expect(ids == ["b2-e1", "b2-e2", "b3-e0", "b3-e1", "b3-e2"])
    }
}

/// Found by the control-bodies fuzzer: a workspace's config could set the payload's revision or issuedAt.
@Suite("The server's payload fields cannot be overridden")
struct ServerPayloadFieldsTests {
    @Test("a config that sets revision or issuedAt is refused; served with allowInvalid, the server's values win")
    func reservedMembers() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            var document = try JSONParser().parse(MockFixture.workspace("shop"))
            var root = try #require(document.objectValue)
            var config = try #require(root["config"]?.objectValue)
            config.set("revision", 999_999)
            config.set("issuedAt", 1)
            root.set("config", .object(config))
            document = .object(root)
            let body = String(decoding: document.serialized(), as: UTF8.self)
            let refused = try fetch(server.port, Control.request("PUT", "/_mock/workspaces/shop", body: body))
            #expect(refused.status == 422)
            let forced = try fetch(
                server.port, Control.request("PUT", "/_mock/workspaces/shop?allowInvalid=true", body: body))
            #expect(forced.status == 200)
            let served = try Control.configuration(server.port, "shop")
            #expect(served.payload["revision"]?.int64Value == served.revision)
            #expect(served.revision != 999_999)
            #expect(served.payload["issuedAt"]?.int64Value ?? 0 > 1)
        }
    }
}
