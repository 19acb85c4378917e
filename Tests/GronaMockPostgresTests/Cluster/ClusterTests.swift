import Foundation
import GronaMock
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// Two instances of the built binary on one database, as `Examples/cluster/run` runs them: a client must not be
/// able to tell that there are two (issue 15).
@Suite(
    "Cluster: two instances on one PostgreSQL", .serialized,
    .enabled(if: TestPostgres.isAvailable, TestPostgres.unavailableReason))
struct ClusterTests {
    /// Two instances on a fresh schema of the shared throwaway cluster.
    private static func pair() throws -> (ClusterInstance, ClusterInstance) {
        let store = try TestPostgres.freshURL()
        return (try ClusterInstance(store: store), try ClusterInstance(store: store))
    }

    /// The status of campaign `id` in the configuration `instance` serves (its signed payload, decoded).
    private static func campaignStatus(_ instance: ClusterInstance, _ id: String) throws -> String? {
        let body = try JSONParser().parse(try instance.get("/v1/mobile/workspaces/acme-market/config").body)
        guard var payload = body["payload"]?.stringValue else { return nil }
        payload = payload.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        payload += String(repeating: "=", count: (4 - payload.count % 4) % 4)
        guard let bytes = Data(base64Encoded: payload) else { return nil }
        let config = try JSONParser().parse(Array(bytes))
        return config["campaigns"]?.arrayValue?.first { $0["id"]?.stringValue == id }?["status"]?.stringValue
    }

    @Test("a kill on A is served by B within a second, at a revision that only grew")
    func killPropagates() throws {
        let (a, b) = try Self.pair()
        #expect(try Self.campaignStatus(b, "home-hero") == "live")
        let before = try b.json("/_mock/workspaces/acme-market")["revision"]?.int64Value ?? 0
        let killed = try a.post("/_mock/workspaces/acme-market/campaigns/home-hero/kill")
        #expect(killed.status == 200)
        #expect(eventually(seconds: 1) { (try? Self.campaignStatus(b, "home-hero")) == "killed" })
        let after = try b.json("/_mock/workspaces/acme-market")
        #expect((after["revision"]?.int64Value ?? 0) > before)
        #expect(after["origin"]?.stringValue == "runtime")

        // Back the other way, from B.
        #expect(try b.post("/_mock/workspaces/acme-market/campaigns/home-hero/revive").status == 200)
        #expect(eventually(seconds: 1) { (try? Self.campaignStatus(a, "home-hero")) == "live" })
    }

    @Test("the clock and a clone set on one instance are what the other serves")
    func clockAndClone() throws {
        let (a, b) = try Self.pair()
        #expect(try a.post("/_mock/clock", #"{"freeze":true,"at":1800000000000}"#).status == 200)
        #expect(eventually(seconds: 1) { (try? b.json("/_mock/clock")["now"]?.int64Value) == 1_800_000_000_000 })

        let clone = try b.post("/_mock/workspaces/acme-market/clone", #"{"workspaceKey":"run-7"}"#)
        #expect(clone.status == 201)
        let secret = try JSONParser().parse(clone.body)["secretKey"]?.stringValue ?? ""
        #expect(eventually(seconds: 1) { (try? a.get("/v1/mobile/workspaces/run-7/config").status) == 200 })
        // The secret key B generated picks the clone on A too: a grants request with it is not refused as
        // an unknown key (whatever the body lacks, that is a 400, not a 401).
        let grant = try fetch(
            a.port,
            "POST /v1/mobile/grants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(secret)\r\n"
                + "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
        #expect(!secret.isEmpty)
        #expect(grant.status != 401)
        #expect(try a.json("/_mock/workspaces/run-7")["origin"]?.stringValue == "clone")

        #expect(try a.post("/_mock/reset").status == 200)
        #expect(eventually(seconds: 1) { (try? b.get("/v1/mobile/workspaces/run-7/config").status) == 404 })
        #expect(eventually(seconds: 1) { (try? b.json("/_mock/clock")["frozen"]?.boolValue) == false })
    }

    @Test("sequential clock changes on one instance all count, there and on the other instance")
    func sequentialClockChanges() throws {
        let (a, b) = try Self.pair()
        // Each advance is answered before the next is sent; the listener reads the notification of the one
        // before while the next is applied, and must not put the clock back (found by a review: 300 advances
        // of a second ended 39 to 44 seconds short).
        let steps = 150
        for step in 1...steps {
            let answer = try a.post("/_mock/clock", #"{"advanceMs":1000}"#)
            #expect(answer.status == 200)
            let offset = try JSONParser().parse(answer.body)["offsetMs"]?.int64Value
            #expect(offset == Int64(step) * 1000, "after advance \(step)")
            if offset != Int64(step) * 1000 { break }
        }
        let expected = Int64(steps) * 1000
        #expect(eventually(seconds: 2) { (try? a.json("/_mock/clock")["offsetMs"]?.int64Value) == expected })
        #expect(eventually(seconds: 2) { (try? b.json("/_mock/clock")["offsetMs"]?.int64Value) == expected })
    }

    @Test("an event sent to A and again to B is stored once and counted a duplicate by B")
    func duplicatesAcrossInstances() throws {
        let (a, b) = try Self.pair()
        let batch = ClusterEvents.batch(["dup-1", "dup-2", "dup-3"])
        let first = try JSONParser().parse(try a.post("/v1/mobile/events", batch).body)
        #expect(first["accepted"]?.int64Value == 3)
        let second = try JSONParser().parse(try b.post("/v1/mobile/events", batch).body)
        #expect(second["accepted"]?.int64Value == 0)
        #expect(second["duplicates"]?.int64Value == 3)
        #expect(try a.storedEventIDs(workspace: "acme-market").sorted() == ["dup-1", "dup-2", "dup-3"])
    }

    @Test("a fault rule for the next 3 requests fires exactly 3 times across A and B")
    func faultCountsAcrossInstances() throws {
        let (a, b) = try Self.pair()
        let added = try a.post("/_mock/faults", #"{"endpoint":"config","kind":"status","status":503,"count":3}"#)
        #expect(added.status == 201)
        // What a user checks: B lists the rule A added.
        #expect(eventually(seconds: 1) { (try? b.json("/_mock/faults")["faults"]?.arrayValue?.count) == 1 })
        var injected = 0
        for instance in [a, b, a, b, b, a, a, b, a, b] {
            let response = try instance.get("/v1/mobile/workspaces/acme-market/config")
            if response.status == 503 {
                #expect(response.text.contains("injected_fault"))
                injected += 1
            } else {
                #expect(response.status == 200)
            }
        }
        #expect(injected == 3)
        let rule = try #require(try b.json("/_mock/faults")["faults"]?.arrayValue?.first)
        #expect(rule["fired"]?.int64Value == 3)
        #expect(rule["remaining"]?.int64Value == 0)
    }

    @Test("a seeded rule draws one sequence across A and B: the one a single process draws")
    func seededDrawsAcrossInstances() throws {
        let (a, b) = try Self.pair()
        let rule = #"{"endpoint":"config","kind":"status","status":500,"probability":0.5,"seed":42}"#
        #expect(try b.post("/_mock/faults", rule).status == 201)
        #expect(eventually(seconds: 1) { (try? a.json("/_mock/faults")["faults"]?.arrayValue?.count) == 1 })
        var fired: [Bool] = []
        for instance in [a, b, b, a, b, a, a, a, b, b, a, b, a, b, b, a] {
            fired.append(try instance.get("/v1/mobile/workspaces/acme-market/config").status == 500)
        }
        var generator = SplitMix64(seed: 42)
        let expected = fired.indices.map { _ in SplitMix64.fires(generator.next(), probability: 0.5) }
        #expect(fired == expected)
        #expect(fired.contains(true) && fired.contains(false))
    }

    @Test("a long-poll waiting on B wakes for events posted to A")
    func waiterWokenByTheOtherInstance() throws {
        let (a, b) = try Self.pair()
        let answer = Mutex<RawClient.Response?>(nil)
        let port = b.port
        let waiter = Thread {
            let response = try? fetch(
                port, "GET /_mock/events/wait?workspace=acme-market&count=2&timeoutMs=20000 HTTP/1.1\r\nHost: x\r\n\r\n"
            )
            answer.withLock { $0 = response }
        }
        waiter.start()
        #expect(
            eventually(seconds: 10) {
                (try? b.get("/_mock/metrics").text.contains("\ngrona_event_waits 1")) == true
            })
        #expect(try a.post("/v1/mobile/events", ClusterEvents.batch(["w-1", "w-2"])).status == 200)
        // Well before the long-poll's own 20 s timeout.
        #expect(eventually(seconds: 5) { answer.withLock { $0 } != nil })
        let body = try JSONParser().parse(try #require(answer.withLock { $0 }).body)
        #expect(body["complete"]?.boolValue == true)
        #expect(body["count"]?.int64Value == 2)
    }
}
