import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// Rules scoped to one workspace (`"workspace": "<key>"`), for parallel shards that each clone a workspace on
/// one server: such a rule fires only for its workspace's requests, and its count and draws advance on them
/// alone.
@Suite("/_mock/faults scoped to a workspace")
struct FaultWorkspaceTests {
    static let endpoints = ["config", "grants", "events"]
    static let shopSecret = GrantsEndpointTests.secret

    @Test(
        "a scoped rule fires on its workspace, not on another, and counts only its workspace's requests",
        arguments: endpoints)
    func scoped(_ endpoint: String) throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            // Added before the workspace exists, as a shard does before it clones.
            let rule = try FaultAPI.add(
                server.port,
                #"{"endpoint": "\#(endpoint)", "workspace": "other", "kind": "status", "status": 503, "count": 2}"#)
            #expect(rule["workspace"] == "other")
            let id = try #require(rule["id"]?.stringValue)
            let secret = try FaultAPI.clone(server.port, as: "other")

            var index = 0
            func send(_ workspace: String) throws -> RawClient.Response {
                index += 1
                let key = workspace == "shop" ? Self.shopSecret : secret
                return try fetch(server.port, FaultAPI.request(endpoint, index, workspace: workspace, secret: key))
            }
            for _ in 0..<3 {
                let shop = try send("shop")
                #expect(shop.status == 200)
            }
            let untouched = try FaultAPI.rule(server.port, id: id)
            #expect(untouched?["fired"] == 0)
            #expect(untouched?["seen"] == 0)
            #expect(untouched?["remaining"] == 2)

            var statuses: [Int] = []
            for _ in 0..<3 {
                statuses.append(try send("other").status)
                let shop = try send("shop")
                #expect(shop.status == 200)
            }
            #expect(statuses == [503, 503, 200])
            let listed = try FaultAPI.rule(server.port, id: id)
            #expect(listed?["workspace"] == "other")
            #expect(listed?["fired"] == 2)
            #expect(listed?["remaining"] == 0)
            #expect(listed?["seen"] == 2)
            if endpoint == "events" {
                // The faulted batches of other were not stored; every batch of shop was.
                #expect(EventsAPI.eventIDs(try EventsAPI.stored(server.port, workspace: "other")) == ["e-8"])
                #expect(try EventsAPI.stored(server.port).count == 6)
            }
        }
    }

    @Test("a scoped grants rule never fires for a request that fails authentication; an unscoped one still does")
    func grantsNeedAuthentication() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let secret = try FaultAPI.clone(server.port, as: "other")
            let scoped = try FaultAPI.add(
                server.port, #"{"endpoint": "grants", "workspace": "other", "kind": "drop", "count": 1}"#)
            let body = "{\"customerID\":\"\(FaultAPI.offerCustomer)\"}"
            for request in [
                GrantsEndpointTests.request(body, secret: "sk_wrong_secret_key"),
                GrantsEndpointTests.request(body, secret: nil),
            ] {
                let refused = try fetch(server.port, request)
                #expect(refused.status == 401)
            }
            let listed = try FaultAPI.rule(server.port, id: scoped["id"]?.stringValue ?? "")
            #expect(listed?["seen"] == 0)
            #expect(listed?["fired"] == 0)

            let dropped = try WireConnection.exchange(server.port, GrantsEndpointTests.request(body, secret: secret))
            #expect(dropped.bytes.isEmpty)

            try FaultAPI.add(server.port, #"{"endpoint": "grants", "kind": "status", "status": 500, "count": 1}"#)
            let unscoped = try fetch(server.port, GrantsEndpointTests.request(body, secret: "sk_wrong_secret_key"))
            #expect(unscoped.status == 500)
            #expect(FaultAPI.errorCode(unscoped) == "injected_fault")
        }
    }

    @Test("a scoped events rule sees only batches that parsed with its workspaceKey")
    func eventsNeedAParsedBatch() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let secret = try FaultAPI.clone(server.port, as: "other")
            let rule = try FaultAPI.add(
                server.port,
                #"{"endpoint": "events", "workspace": "other", "kind": "status", "status": 429, "count": 1}"#)
            let malformed = try EventsAPI.post(server.port, Array(#"{"workspaceKey": "other", "events": ["#.utf8))
            #expect(malformed.status == 400)
            let unknown = EventsAPI.envelope([SampleEvents.placementEvent("exposure", id: "e-1")], workspaceKey: "gone")
            #expect(try EventsAPI.post(server.port, unknown.serialized()).status == 404)
            let listed = try FaultAPI.rule(server.port, id: rule["id"]?.stringValue ?? "")
            #expect(listed?["seen"] == 0)

            let faulted = try fetch(server.port, FaultAPI.request("events", 2, workspace: "other", secret: secret))
            #expect(faulted.status == 429)
            #expect(faulted.header("Retry-After") == "1")
            #expect(FaultAPI.errorCode(faulted) == "injected_fault")
        }
    }

    @Test("each kind applies when the workspace is known: truncate, delay, tampered config and grants")
    func kindsAfterTheWorkspaceIsKnown() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let keys = try fixture.publicKeys()
            let secret = try FaultAPI.clone(server.port, as: "other")
            for rule in [
                #"{"endpoint": "events", "workspace": "other", "kind": "truncate", "count": 1}"#,
                #"{"endpoint": "events", "workspace": "other", "kind": "delay", "delayMs": 200, "count": 1}"#,
                #"{"endpoint": "config", "workspace": "other", "kind": "bad_signature", "count": 1}"#,
                #"{"endpoint": "grants", "workspace": "other", "kind": "other_customer", "count": 1}"#,
            ] {
                try FaultAPI.add(server.port, rule)
            }
            let cut = try WireConnection.exchange(
                server.port, FaultAPI.request("events", 1, workspace: "other", secret: secret))
            let length = Int(cut.header("Content-Length") ?? "") ?? 0
            #expect(cut.status == 200)
            #expect(cut.body.count == length / 2)

            let clock = ContinuousClock()
            let started = clock.now
            let delayed = try fetch(server.port, FaultAPI.request("events", 2, workspace: "other", secret: secret))
            #expect(delayed.status == 200)
            #expect(clock.now - started >= .milliseconds(200))
            // Both batches were stored: a truncation or a delay loses only the answer.
            #expect(EventsAPI.eventIDs(try EventsAPI.stored(server.port, workspace: "other")) == ["e-1", "e-2"])

            let shopConfig = try fetch(server.port, FaultAPI.config)
            #expect(try ConfigVerification.general(shopConfig.body, keys: keys).1.allSatisfy { $0.failure == nil })
            let otherConfig = try fetch(server.port, FaultAPI.request("config", 0, workspace: "other", secret: secret))
            #expect(otherConfig.status == 200)
            let checks = try ConfigVerification.general(otherConfig.body, keys: keys).1
            #expect(!checks.isEmpty && checks.allSatisfy { $0.failure == .badSignature })

            let shopGrants = try FaultAPI.grantTokens(try fetch(server.port, FaultAPI.grants))
            let shopToken = try #require(shopGrants.tokens.first)
            let shopClaims = try GrantVerifier.verify(
                shopToken, keys: keys, audience: "shop", now: shopGrants.serverTime)
            #expect(shopClaims.subject == FaultAPI.offerCustomer)
            let otherGrants = try FaultAPI.grantTokens(
                try fetch(server.port, FaultAPI.request("grants", 0, workspace: "other", secret: secret)))
            let otherToken = try #require(otherGrants.tokens.first)
            let otherClaims = try GrantVerifier.verify(
                otherToken, keys: keys, audience: "other", now: otherGrants.serverTime)
            #expect(otherClaims.subject != FaultAPI.offerCustomer)
        }
    }

    @Test("an unscoped rule that fires first claims the request; the scoped rule only takes its draw")
    func unscopedRulesFirst() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let secret = try FaultAPI.clone(server.port, as: "other")
            let scoped = try FaultAPI.add(
                server.port,
                #"{"endpoint": "config", "workspace": "other", "kind": "status", "status": 503, "count": 1}"#)
            let unscoped = try FaultAPI.add(
                server.port, #"{"endpoint": "config", "kind": "unknown_kid", "count": 1}"#)
            let config = FaultAPI.request("config", 0, workspace: "other", secret: secret)
            let first = try fetch(server.port, config)
            #expect(first.status == 200)
            let kids = try ConfigVerification.general(first.body, keys: try fixture.publicKeys()).1.map(\.kid)
            #expect(kids == ["grona-mock-fault-unknown-kid"])
            let claimed = try FaultAPI.rule(server.port, id: scoped["id"]?.stringValue ?? "")
            #expect(claimed?["seen"] == 1)
            #expect(claimed?["fired"] == 0)
            #expect(try FaultAPI.rule(server.port, id: unscoped["id"]?.stringValue ?? "")?["fired"] == 1)
            let second = try fetch(server.port, config)
            #expect(second.status == 503)
        }
    }

    /// Which of `requests` requests of `other` a seeded scoped rule fails, with `noise` requests of `shop`
    /// (config, grants and events in turn) sent before each; the rule is removed afterwards.
    private static func fires(_ port: Int, secret: String, seed: UInt64, requests: Int, noise: Int) throws -> [Bool] {
        let rule = try FaultAPI.add(
            port,
            #"{"endpoint": "all", "workspace": "other", "kind": "status", "status": 503, "#
                + #""probability": 0.3, "seed": \#(seed)}"#)
        // Another shard's rule, on shop's events: it must not disturb other's draws.
        let shard = try FaultAPI.add(
            port, #"{"endpoint": "events", "workspace": "shop", "kind": "drop", "probability": 0.5, "seed": 1}"#)
        let client = try RawClient(port: port)
        var fires: [Bool] = []
        var sent = 0
        for index in 0..<requests {
            for extra in 0..<(noise * (index % 3)) {
                sent += 1
                let endpoint = endpoints[extra % endpoints.count]
                let request = FaultAPI.request(endpoint, sent, workspace: "shop", secret: shopSecret)
                if endpoint == "events" {
                    _ = try WireConnection.exchange(
                        port, request.replacingOccurrences(of: "Host: x\r\n", with: "Host: x\r\nConnection: close\r\n"))
                } else {
                    #expect(try fetch(port, request).status == 200)
                }
            }
            sent += 1
            let endpoint = index % 2 == 0 ? "config" : "events"
            try client.send(FaultAPI.request(endpoint, sent, workspace: "other", secret: secret))
            let response = try client.readResponse()
            fires.append(response.status == 503)
        }
        let id = rule["id"]?.stringValue ?? ""
        let listed = try FaultAPI.rule(port, id: id)
        #expect(listed?["seen"]?.int64Value == Int64(requests))
        #expect(listed?["fired"]?.int64Value == Int64(fires.filter { $0 }.count))
        for removed in [id, shard["id"]?.stringValue ?? ""] {
            _ = try fetch(port, "DELETE /_mock/faults/\(removed) HTTP/1.1\r\nHost: x\r\n\r\n")
        }
        return fires
    }

    @Test("the same seed fails the same requests of its workspace, whatever other workspaces' traffic")
    func seedsPerWorkspace() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let secret = try FaultAPI.clone(server.port, as: "other")
            let alone = try Self.fires(server.port, secret: secret, seed: 42, requests: 60, noise: 0)
            let interleaved = try Self.fires(server.port, secret: secret, seed: 42, requests: 60, noise: 2)
            #expect(alone == interleaved)
            #expect(alone.contains(true) && alone.contains(false))
            var generator = SplitMix64(seed: 42)
            let predicted = (0..<60).map { _ in SplitMix64.fires(generator.next(), probability: 0.3) }
            #expect(alone == predicted)
        }
    }

    static let invalidWorkspaces = [
        #""Shop""#, #""""#, #""-shop""#, #""shop one""#, "42", "null", #"["shop"]"#,
        "\"\(String(repeating: "a", count: 64))\"",
    ]

    @Test("a workspace that is not a workspace key is refused with 400 invalid_fault", arguments: invalidWorkspaces)
    func invalidWorkspace(_ value: String) throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let response = try fetch(
                server.port,
                FaultAPI.post(
                    "/_mock/faults", #"{"endpoint": "all", "workspace": \#(value), "kind": "drop", "count": 1}"#))
            #expect(response.status == 400)
            #expect(FaultAPI.errorCode(response) == "invalid_fault")
            let message = (try? JSONParser().parse(response.body))?["error"]?["message"]?.stringValue ?? ""
            #expect(message.hasPrefix("workspace:"), "\(message)")
            #expect(try FaultAPI.rules(server.port).isEmpty)
        }
    }

    @Test("a workspace key that is not served yet is accepted, and GET lists the workspace")
    func listed() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let longest = String(repeating: "a", count: 63)
            try FaultAPI.add(
                server.port, #"{"endpoint": "events", "workspace": "\#(longest)", "kind": "drop", "count": 1}"#)
            try FaultAPI.add(server.port, #"{"endpoint": "events", "kind": "drop", "count": 1}"#)
            let rules = try FaultAPI.rules(server.port)
            #expect(rules.first?["workspace"]?.stringValue == longest)
            #expect(rules.last?["workspace"] == nil)
        }
    }
}
