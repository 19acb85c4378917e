import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// Clients that go while the server holds their request on purpose: a `delay` fault (up to 600 s, and held
/// after its rule is deleted) or a `/_mock/events/wait` long-poll. Each must take back its connection at once,
/// not when the hold ends: twenty of them held in CLOSE_WAIT once turned every new client away with 503 for the
/// length of the delay. The holds are 30 s and every timeout is longer, so only the client's going frees them
/// within the tests' deadlines.
@Suite("Clients that go during a delay or a long-poll", .serialized)
struct HeldClientsTests {
    /// 20 held clients and the two probes this test may have open at once: the held ones alone would fill it.
    static let cap = 22
    /// How soon the connections must be back to their count before the clients came.
    static let freedWithin = 1.0

    static func withServer<T>(
        configure: (inout GronaMockConfiguration) -> Void = { _ in }, _ body: (GronaMockServer) throws -> T
    ) throws -> T {
        let fixture = try MockFixture.standard()
        return try fixture.withServer(
            configure: { configuration in
                configuration.http.maxConnections = cap
                configuration.http.headerTimeout = .seconds(60)
                configuration.http.bodyTimeout = .seconds(60)
                configuration.http.idleTimeout = .seconds(60)
                configuration.http.writeTimeout = .seconds(60)
                configure(&configuration)
            }, body)
    }

    /// `GET /_mock/health` → `connections.open`, less the probe's own connection, which the server closes
    /// after answering (`Connection: close`) so that the next probe does not find it still counted.
    static func openConnections(_ port: Int) throws -> Int {
        let response = try fetch(port, "GET /_mock/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let open = try JSONParser().parse(response.body)["connections"]?["open"]?.int64Value ?? -1
        return Int(open) - 1
    }

    /// Expects the open connections back to `count` within `freedWithin`.
    static func expectFreed(_ port: Int, back count: Int) throws {
        let freed = try eventually(seconds: freedWithin) { try openConnections(port) == count }
        let open = try openConnections(port)
        #expect(freed, "\(open) connections open, \(count) before the clients")
    }

    /// Long-polls waiting now (`grona_event_waits`).
    static func waits(_ port: Int) -> Double? { EventsEndpointTests.metric(port, "grona_event_waits") }

    static func delayRule(_ port: Int, count: Int = 20) throws -> String {
        let rule = try FaultAPI.add(
            port, #"{"endpoint": "config", "kind": "delay", "delayMs": 30000, "count": \#(count)}"#)
        return rule["id"]?.stringValue ?? ""
    }

    static func fired(_ port: Int, _ id: String) throws -> Int64? {
        try FaultAPI.rule(port, id: id)?["fired"]?.int64Value
    }

    static let wait =
        "GET /_mock/events/wait?workspace=shop&type=purchase&count=1000&timeoutMs=30000 HTTP/1.1\r\nHost: x\r\n\r\n"

    /// Twenty clients at once, each asking for its configuration: all are served, none turned away.
    static func expectTwentyServed(_ port: Int) throws {
        let clients = try (0..<20).map { _ in try RawClient(port: port) }
        for client in clients { try client.send(FaultAPI.config) }
        let statuses = try clients.map { try $0.readResponse().status }
        #expect(statuses == Array(repeating: 200, count: 20))
    }

    @Test("twenty clients that close during a 30 s delay free their connections at once; twenty new ones are served")
    func closeDuringDelay() throws {
        try Self.withServer { server in
            let before = try Self.openConnections(server.port)
            let id = try Self.delayRule(server.port)
            let clients = try (0..<20).map { _ in try RawClient(port: server.port) }
            for client in clients { try client.send(FaultAPI.config) }
            #expect(try eventually { try Self.fired(server.port, id) == 20 })
            for client in clients { client.closeNow() }
            try Self.expectFreed(server.port, back: before)
            try Self.expectTwentyServed(server.port)
            // Each went before its answer: counted as nginx counts it, 499, and not answered later.
            #expect(try Self.abandonedConfigs(server.port) == 20)
        }
    }

    /// `grona_http_requests_total` for the configuration endpoint with status 499 (abandoned).
    static func abandonedConfigs(_ port: Int) throws -> Double? {
        let response = try fetch(port, "GET /_mock/metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        return try PrometheusText.parse(response.text).first {
            $0.name == "grona_http_requests_total" && $0.labels["status"] == "499"
                && $0.labels["route"] == "/v1/mobile/workspaces/{workspaceKey}/config"
        }?.value
    }

    @Test("twenty clients that close during a 30 s long-poll free their connections and their waits at once")
    func closeDuringWait() throws {
        try Self.withServer { server in
            let before = try Self.openConnections(server.port)
            let clients = try (0..<20).map { _ in try RawClient(port: server.port) }
            for client in clients { try client.send(Self.wait) }
            #expect(eventually { Self.waits(server.port) == 20 })
            for client in clients { client.closeNow() }
            try Self.expectFreed(server.port, back: before)
            #expect(eventually { Self.waits(server.port) == 0 }, "the waits were kept")
            try Self.expectTwentyServed(server.port)
        }
    }

    typealias Ending = ClientEnding

    @Test("a client held by a delay or a long-poll is freed at once however it goes", arguments: Ending.allCases)
    func everyEnding(ending: Ending) throws {
        try Self.withServer { server in
            let id = try Self.delayRule(server.port, count: 1)
            for request in [FaultAPI.config, Self.wait] {
                let client = try RawClient(port: server.port)
                try client.send(request)
                if request == Self.wait {
                    #expect(eventually { Self.waits(server.port) == 1 })
                } else {
                    #expect(try eventually { try Self.fired(server.port, id) == 1 })
                }
                ending.apply(to: client)
                try Self.expectFreed(server.port, back: 0)
                client.closeNow()
            }
            #expect(eventually { Self.waits(server.port) == 0 })
        }
    }

    @Test("a client that closes during the delay of its second pipelined request is freed at once")
    func closeDuringPipelinedDelay() throws {
        try Self.withServer { server in
            let id = try Self.delayRule(server.port, count: 1)
            let client = try RawClient(port: server.port)
            // jwks.json is never faulted: the first answer comes at once, the second is held.
            try client.send("GET /v1/mobile/workspaces/shop/jwks.json HTTP/1.1\r\nHost: x\r\n\r\n" + FaultAPI.config)
            #expect(try client.readResponse().status == 200)
            #expect(try eventually { try Self.fired(server.port, id) == 1 })
            client.closeNow()
            try Self.expectFreed(server.port, back: 0)
        }
    }

    @Test("a delay whose rule is deleted while it holds is still freed at once when its client closes")
    func ruleDeletedWhileHeld() throws {
        try Self.withServer { server in
            let id = try Self.delayRule(server.port, count: 1)
            let client = try RawClient(port: server.port)
            try client.send(FaultAPI.config)
            #expect(try eventually { try Self.fired(server.port, id) == 1 })
            let deleted = try fetch(server.port, "DELETE /_mock/faults/\(id) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(deleted.status == 200)
            #expect(try Self.openConnections(server.port) == 1)
            client.closeNow()
            try Self.expectFreed(server.port, back: 0)
        }
    }

    @Test("shutdown with clients held by delays and long-polls stops within its deadline")
    func shutdownWhileHeld() throws {
        let fixture = try MockFixture.standard()
        var configuration = fixture.configuration()
        configuration.http.shutdownTimeout = .milliseconds(500)
        let server = try GronaMockServer.start(configuration, logger: .silent)
        let id = try Self.delayRule(server.port, count: 5)
        let delayed = try (0..<5).map { _ in try RawClient(port: server.port) }
        for client in delayed { try client.send(FaultAPI.config) }
        let waiting = try (0..<5).map { _ in try RawClient(port: server.port) }
        for client in waiting { try client.send(Self.wait) }
        #expect(try eventually { try Self.fired(server.port, id) == 5 })
        #expect(eventually { Self.waits(server.port) == 5 })
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            server.shutdown()
            server.wait()
            stopped.signal()
        }
        #expect(stopped.wait(timeout: .now() + 15) == .success, "the server did not stop")
        // The long-polls are answered at shutdown with what there is; the delays are cut at the deadline.
        for client in waiting { #expect(try client.readResponse().status == 200) }
        for client in delayed { #expect(client.isClosedByServer()) }
    }
}
