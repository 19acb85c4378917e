import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// Control routes are adapters (issue 29): each parses its request, calls exactly one operation of the engine
/// (`GronaMockEngine`) and encodes what it returns. The table must name every `/_mock` route but the
/// dashboard's files and the static files, which serve bytes and ask the engine nothing.
@Suite("Control routes call one engine operation each")
struct RouteAdapterTests {
    /// A request for each control route, by method and pattern, and the engine operation it must call.
    static func requests(fault: String) -> [String: (request: String, operation: String)] {
        [
            "GET /_mock/health": (get("/_mock/health"), "readiness(_:)"),
            "GET /_mock/health/ready": (get("/_mock/health/ready"), "readiness(_:)"),
            "GET /_mock/health/live": (get("/_mock/health/live"), "liveness()"),
            "GET /_mock/metrics": (get("/_mock/metrics"), "metricsExposition()"),
            "GET /_mock/clock": (get("/_mock/clock"), "clockState()"),
            "GET /_mock/conformance": (get("/_mock/conformance"), "conformanceRun()"),
            "POST /_mock/clock": (
                Control.request("POST", "/_mock/clock", body: #"{"advanceMs":1}"#), "changeClock(_:)"
            ),
            "GET /_mock/events": (get("/_mock/events?workspace=shop"), "events(_:page:)"),
            "GET /_mock/events/export": (get("/_mock/events/export?workspace=shop"), "exportEvents(_:format:)"),
            "GET /_mock/events/funnels": (
                get("/_mock/events/funnels?workspace=shop"), "funnels(workspace:campaignID:)"
            ),
            "GET /_mock/events/rejected": (
                get("/_mock/events/rejected?workspace=shop"), "rejectedEvents(workspace:page:)"
            ),
            "GET /_mock/events/summary": (get("/_mock/events/summary?workspace=shop"), "eventSummary(workspace:)"),
            "GET /_mock/events/violations": (get("/_mock/events/violations?workspace=shop"), "violations(_:query:)"),
            "GET /_mock/events/wait": (
                get("/_mock/events/wait?workspace=shop&count=1&timeoutMs=0"), "waitForEvents(_:count:timeout:deliver:)"
            ),
            "GET /_mock/events/live": (get("/_mock/events/live?workspace=shop"), "watchLive(_:after:)"),
            "DELETE /_mock/events": (
                Control.request("DELETE", "/_mock/events?workspace=shop"), "deleteEvents(workspace:completion:)"
            ),
            "GET /_mock/faults": (get("/_mock/faults"), "faultRules()"),
            "POST /_mock/faults": (
                Control.request(
                    "POST", "/_mock/faults", body: #"{"endpoint":"config","kind":"status","status":503,"count":1}"#),
                "addFault(_:)"
            ),
            "DELETE /_mock/faults": (Control.request("DELETE", "/_mock/faults"), "clearFaults()"),
            "GET /_mock/faults/{id}": (get("/_mock/faults/\(fault)"), "faultRule(id:)"),
            "DELETE /_mock/faults/{id}": (Control.request("DELETE", "/_mock/faults/\(fault)"), "removeFault(id:)"),
            "GET /_mock/workspaces": (get("/_mock/workspaces"), "workspaceList()"),
            "GET /_mock/workspaces/{key}": (get("/_mock/workspaces/shop"), "workspace(_:)"),
            "PUT /_mock/workspaces/{key}": (
                Control.request("PUT", "/_mock/workspaces/shop", body: MockFixture.workspace("shop")),
                "putWorkspace(_:document:allowInvalid:)"
            ),
            "POST /_mock/workspaces/{key}/campaigns/{id}/kill": (
                Control.request("POST", "/_mock/workspaces/shop/campaigns/home-hero/kill"),
                "setCampaignStatus(_:campaign:workspace:)"
            ),
            "POST /_mock/workspaces/{key}/campaigns/{id}/revive": (
                Control.request("POST", "/_mock/workspaces/shop/campaigns/home-hero/revive"),
                "setCampaignStatus(_:campaign:workspace:)"
            ),
            "POST /_mock/workspaces/{key}/clone": (
                Control.request("POST", "/_mock/workspaces/shop/clone", body: #"{"workspaceKey":"run-2"}"#),
                "cloneWorkspace(_:as:secretKey:ttlSeconds:)"
            ),
            "DELETE /_mock/workspaces/{key}": (
                Control.request("DELETE", "/_mock/workspaces/run-1"), "deleteClone(_:completion:)"
            ),
            "POST /_mock/workspaces/{key}/rotate": (
                Control.request("POST", "/_mock/workspaces/shop/rotate", body: #"{"keys":"grant"}"#),
                "rotateKeys(_:workspace:)"
            ),
            "GET /_mock/workspaces/{workspaceKey}/sdk-options": (
                get("/_mock/workspaces/shop/sdk-options"), "sdkOptions(_:baseURL:)"
            ),
            "POST /_mock/reset": (
                Control.request("POST", "/_mock/reset?workspace=shop"), "reset(workspace:completion:)"
            ),
        ]
    }

    static func get(_ target: String) -> String { "GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n" }

    @Test("each /_mock route but the dashboard's and the static files calls exactly one engine operation, its own")
    func oneOperationEach() async throws {
        let fixture = try MockFixture.standard()
        let server = try GronaMockServer.start(fixture.configuration(), logger: .silent)
        defer {
            server.shutdown()
            server.wait()
        }
        #expect(
            try fetch(
                server.port, Control.request("POST", "/_mock/workspaces/shop/clone", body: #"{"workspaceKey":"run-1"}"#)
            ).status == 201)
        let added = try FaultAPI.add(server.port, #"{"endpoint":"grants","kind":"status","status":503,"count":1}"#)
        let fault = try #require(added["id"]?.stringValue)

        let table = Self.requests(fault: fault)
        let controlRoutes = Set(
            server.routes.filter { $0.pattern.hasPrefix("/_mock") }.map { "\($0.method) \($0.pattern)" }
        ).subtracting(["GET /_mock/ui", "GET /_mock/ui/{asset}", "GET /_mock/static/{name}"])
        #expect(Set(table.keys) == controlRoutes, "the table and the route table differ")

        let calls = Mutex<[String]>([])
        server.engine.observeCalls { name in calls.withLock { $0.append(name) } }
        defer { server.engine.observeCalls(nil) }
        // In an order that keeps each request's preconditions: what removes the fault and the clone comes last,
        // the one rule before all of them.
        let last = ["DELETE /_mock/faults/{id}", "DELETE /_mock/faults", "DELETE /_mock/workspaces/{key}"]
        let order = table.keys.filter { !last.contains($0) }.sorted() + last
        for route in order {
            guard let (request, operation) = table[route] else { continue }
            calls.withLock { $0 = [] }
            let response = try await answer(server, request, streamed: route.hasSuffix("/live"))
            #expect(response < 400, "\(route) answered \(response)")
            #expect(calls.withLock { $0 } == [operation], "\(route)")
        }
        // The SDK endpoints call no control operation.
        calls.withLock { $0 = [] }
        #expect(try fetch(server.port, FaultAPI.config).status == 200)
        #expect(calls.withLock { $0 }.isEmpty)
    }

    /// The status of one request's answer; a live stream is read to its head and closed.
    private func answer(_ server: GronaMockServer, _ request: String, streamed: Bool) async throws -> Int {
        if streamed {
            let client = try RawClient(port: server.port)
            try client.send(request)
            return try client.readResponse(forHead: true).status
        }
        return await server.exchange(request).status.code
    }
}
