import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockPostgres
import GronaMockTestSupport
import Testing

/// With PostgreSQL stopped, every write route of the route table fails the same way: 503 `storage_unavailable`
/// with `Retry-After`, as docs/postgres.md promises (issue 28: kill, revive and clone used to answer 500
/// `change_failed`). The table below must name every write route the server has, so a route added later cannot
/// be left out.
@Suite("PostgreSQL down: every write route", .serialized)
struct StorageDownTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let batch =
        #"{"workspaceKey":"acme-market","installID":"i-1","sdk":{"platform":"ios","version":"1"},"#
        + #""app":{"id":"a","version":"1"},"sentAt":1764478800123,"events":[{"eventID":"e-1","type":"purchase","#
        + #""timestamp":1764478800000,"orderID":"o-1","totalMinor":100,"treatments":[]}]}"#

    /// One request per write route, by method and pattern, and what it must get with the store down: 503, or
    /// (the grants endpoint only) 200, since grants are signed in memory and their record is queued for the
    /// database (docs/postgres.md).
    static func requests(clone: String, rule: String) -> [String: (target: String, body: String, status: Int)] {
        [
            "POST /v1/mobile/events": ("/v1/mobile/events", batch, 503),
            "POST /v1/mobile/grants": ("/v1/mobile/grants", #"{"customerID":"cust_123"}"#, 200),
            "POST /_mock/faults": (
                "/_mock/faults", #"{"endpoint":"config","kind":"status","status":503,"count":1}"#, 503
            ),
            "DELETE /_mock/faults": ("/_mock/faults", "", 503),
            "DELETE /_mock/faults/{id}": ("/_mock/faults/\(rule)", "", 503),
            "DELETE /_mock/events": ("/_mock/events?workspace=acme-market", "", 503),
            "POST /_mock/clock": ("/_mock/clock", #"{"advanceMs":1000}"#, 503),
            "PUT /_mock/workspaces/{key}": ("/_mock/workspaces/\(clone)", document(clone), 503),
            "POST /_mock/workspaces/{key}/campaigns/{id}/kill": (
                "/_mock/workspaces/\(clone)/campaigns/home-hero/kill", "", 503
            ),
            "POST /_mock/workspaces/{key}/campaigns/{id}/revive": (
                "/_mock/workspaces/\(clone)/campaigns/black-friday-2026/revive", "", 503
            ),
            "POST /_mock/workspaces/{key}/clone": (
                "/_mock/workspaces/acme-market/clone", #"{"workspaceKey":"run-down"}"#, 503
            ),
            "DELETE /_mock/workspaces/{key}": ("/_mock/workspaces/\(clone)", "", 503),
            "POST /_mock/workspaces/{key}/rotate": ("/_mock/workspaces/\(clone)/rotate", #"{"keys":"config"}"#, 503),
            "POST /_mock/reset": ("/_mock/reset", "", 503),
        ]
    }

    /// acme-market's file as workspace `key`, with a secret key of its own.
    static func document(_ key: String) -> String {
        let path = repository.appendingPathComponent("workspaces/acme-market.json").path
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        var document = (try? JSONParser().parse(text))?.objectValue ?? JSONObject()
        document.set("workspaceKey", .string(key))
        document.set("secretKeys", ["sk_test_storage_down_1"])
        return JSONValue.object(document).description
    }

    static func send(_ port: Int, _ method: String, _ target: String, _ body: String) throws -> RawClient.Response {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n"
        if !body.isEmpty { head += "Content-Type: application/json\r\n" }
        if target.hasPrefix("/v1/mobile/grants") { head += "Authorization: Bearer sk_test_acme_market_local\r\n" }
        return try fetch(port, head + "\r\n" + body)
    }

    @Test(
        "with PostgreSQL stopped every write route answers 503 storage_unavailable, and all work once it is back",
        .enabled(if: TestPostgres.isAvailable, TestPostgres.unavailableReason))
    func everyWriteRoute() throws {
        let cluster = try TestCluster()
        defer { cluster.stop() }
        var configuration = GronaMockConfiguration(
            workspacesDirectory: Self.repository.appendingPathComponent("workspaces").path,
            keysDirectory: Self.repository.appendingPathComponent("keys").path, storage: .postgres(url: cluster.url))
        configuration.http.port = 0
        configuration.http.eventLoops = 1
        let server = try GronaMockServer.start(configuration, logger: .silent)
        defer {
            server.shutdown()
            server.wait()
        }
        let port = server.port
        // What the routes act on, made while the database is up.
        let clone = "run-storage-down"
        #expect(
            try Self.send(port, "POST", "/_mock/workspaces/acme-market/clone", #"{"workspaceKey":"\#(clone)"}"#).status
                == 201)
        let added = try Self.send(
            port, "POST", "/_mock/faults", #"{"endpoint":"config","kind":"delay","delayMs":1,"count":1}"#)
        let rule = try #require(
            try JSONParser().parse(added.body)["id"]?.stringValue, "\(String(decoding: added.body, as: UTF8.self))")

        let requests = Self.requests(clone: clone, rule: rule)
        let writeRoutes = Set(
            server.routes.filter { [.post, .put, .delete, .patch].contains($0.method) }.map {
                "\($0.method) \($0.pattern)"
            })
        #expect(writeRoutes == Set(requests.keys), "the table and the route table differ")

        try cluster.pause()
        for (route, request) in requests.sorted(by: { $0.key < $1.key }) {
            let method = String(route.prefix { $0 != " " })
            let response = try Self.send(port, method, request.target, request.body)
            #expect(response.status == request.status, "\(route) answered \(response.status)")
            if request.status == 503 {
                #expect(EventsAPI.errorCode(response) == "storage_unavailable", "\(route)")
                #expect(response.header("Retry-After") == "1", "\(route)")
            }
        }

        try cluster.resume()
        var last: RawClient.Response?
        let recovered = eventually(seconds: 30) {
            last = try? Self.send(port, "POST", "/_mock/workspaces/acme-market/clone", #"{"workspaceKey":"run-back"}"#)
            return last?.status == 201
        }
        #expect(recovered, "\(last.map { String(decoding: $0.body, as: UTF8.self) } ?? "no answer")")
        let kill = try Self.send(port, "POST", "/_mock/workspaces/run-back/campaigns/home-hero/kill", "")
        #expect(kill.status == 200)
    }
}

/// `error.code` of an error body.
enum EventsAPI {
    static func errorCode(_ response: RawClient.Response) -> String? {
        (try? JSONParser().parse(response.body))?["error"]?["code"]?.stringValue
    }
}
