import Foundation
import GronaMockHTTP
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// Requests a handler holds on purpose (`HTTPResponder.hold`: a delay, a long-poll), on each poller backend:
/// a client that goes during the hold takes its connection back at once and the hold is released once,
/// whatever way it goes and whatever the connection was doing; a request answered without a hold keeps the
/// half-close of RFC 9112 §9.6 (the client may still read its answer).
///
/// Every timeout here is 30 s, so a connection that closes within the tests' deadlines was closed because
/// the server saw its client go, not by a timeout.
@Suite("Held requests, on each poller backend")
struct HeldRequestTests {
    static func patient(_ backend: PollerBackend) -> HTTPServer.Configuration {
        var configuration = HTTPServer.Configuration.on(backend)
        configuration.headerTimeout = .seconds(30)
        configuration.bodyTimeout = .seconds(30)
        configuration.idleTimeout = .seconds(30)
        configuration.writeTimeout = .seconds(30)
        return configuration
    }

    typealias Ending = ClientEnding

    @Test(
        "a client that goes during a hold frees its connection at once, and the hold is released once",
        arguments: PollerBackend.allCases)
    func clientGoesDuringHold(backend: PollerBackend) throws {
        let ledger = HoldLedger()
        try withLiveServer(Self.patient(backend), router: TestRoutes.holding(ledger)) { server in
            for (index, ending) in Ending.allCases.enumerated() {
                let client = try RawClient(port: server.port)
                try client.send("GET /held HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(eventually { ledger.held == index + 1 }, "\(ending): never held")
                ending.apply(to: client)
                #expect(eventually { server.openConnections == 0 }, "\(ending): the connection stayed open")
                #expect(eventually { ledger.released == index + 1 }, "\(ending): the hold was not released")
                client.closeNow()
            }
            // The handlers answer late, as a delay that ends would: the answers go nowhere, nothing is released
            // twice, and the server goes on serving.
            ledger.answerAll()
            #expect(try fetch(server.port, "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
            #expect(ledger.released == Ending.allCases.count)
        }
    }

    @Test(
        "twenty clients that go during holds, with a connection cap they fill, leave the cap free at once",
        arguments: PollerBackend.allCases)
    func manyClientsAtTheCap(backend: PollerBackend) throws {
        let ledger = HoldLedger()
        var configuration = Self.patient(backend)
        configuration.maxConnections = 20
        try withLiveServer(configuration, router: TestRoutes.holding(ledger)) { server in
            let clients = try (0..<20).map { _ in try RawClient(port: server.port) }
            for client in clients { try client.send("GET /held HTTP/1.1\r\nHost: x\r\n\r\n") }
            #expect(eventually { ledger.held == 20 })
            // The cap is full: a 21st client is turned away.
            #expect(try fetch(server.port, "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").status == 503)
            for client in clients { client.closeNow() }
            #expect(eventually(seconds: 1) { server.openConnections == 0 }, "\(server.openConnections) still open")
            #expect(eventually { ledger.released == 20 })
            // Twenty new clients, all at once, are served.
            let next = try (0..<20).map { _ in try RawClient(port: server.port) }
            for client in next { try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n") }
            for client in next { #expect(try client.readResponse().status == 200) }
        }
    }

    @Test(
        "an answer given without a hold still reaches a client that half-closed",
        arguments: PollerBackend.allCases)
    func halfCloseWithoutHold(backend: PollerBackend) throws {
        try withLiveServer(Self.patient(backend)) { server in
            let client = try RawClient(port: server.port)
            try client.send("GET /later/200?id=unheld HTTP/1.1\r\nHost: x\r\n\r\n")
            client.finishSending()
            #expect(try client.readResponse().text == "{\"id\":\"unheld\"}")
            #expect(client.isClosedByServer())
            #expect(eventually { server.openConnections == 0 })
        }
    }

    @Test(
        "a client that pipelines past the limit behind a held request and then closes is freed at once",
        arguments: PollerBackend.allCases)
    func pipelinedPastTheLimitThenClosed(backend: PollerBackend) throws {
        let ledger = HoldLedger()
        var configuration = Self.patient(backend)
        configuration.maxPipelinedRequests = 2
        try withLiveServer(configuration, router: TestRoutes.holding(ledger)) { server in
            // The held request and the one answered behind it fill the pipeline: reading pauses with the rest
            // unread, and the end of stream comes after them.
            let hello = "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n"
            for ending in [Ending.close, .halfClose] {
                let client = try RawClient(port: server.port)
                let before = ledger.held
                try client.send("GET /held HTTP/1.1\r\nHost: x\r\n\r\n" + String(repeating: hello, count: 8))
                #expect(eventually { ledger.held == before + 1 })
                ending.apply(to: client)
                #expect(eventually { server.openConnections == 0 }, "\(ending): the end went unseen")
                #expect(eventually { ledger.released == before + 1 })
                client.closeNow()
            }
        }
    }

    @Test(
        "pipelined past the limit behind a slow answer without a hold, then half-closed: every request is answered",
        arguments: PollerBackend.allCases)
    func pipelinedPastTheLimitWithoutHold(backend: PollerBackend) throws {
        var configuration = Self.patient(backend)
        configuration.maxPipelinedRequests = 2
        try withLiveServer(configuration) { server in
            let client = try RawClient(port: server.port)
            let hello = "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n"
            try client.send("GET /later/200?id=slow HTTP/1.1\r\nHost: x\r\n\r\n" + String(repeating: hello, count: 8))
            client.finishSending()
            #expect(try client.readResponse().text == "{\"id\":\"slow\"}")
            for _ in 0..<8 { #expect(try client.readResponse().status == 200) }
            #expect(client.isClosedByServer())
            #expect(eventually { server.openConnections == 0 })
        }
    }

    @Test(
        "a hold declared after its client went is released at once",
        arguments: PollerBackend.allCases)
    func holdAfterTheClientWent(backend: PollerBackend) throws {
        // One loop: an answer on another connection then proves that the loop has handled the client's end.
        var configuration = Self.patient(backend)
        configuration.eventLoops = 1
        for ending in [Ending.halfClose, .reset] {
            let ledger = HoldLedger()
            let gate = Gate()
            try withLiveServer(configuration, router: TestRoutes.holding(ledger, gate: gate)) { server in
                let client = try RawClient(port: server.port)
                try client.send("GET /held-late HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(gate.waitForEntry(), "the handler never ran")
                ending.apply(to: client)
                #expect(try fetch(server.port, "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
                // A reset closes the connection now; after a FIN, without a hold yet, it waits for the answer.
                #expect(eventually { server.openConnections == (ending == .reset ? 0 : 1) }, "\(ending)")
                gate.open()
                #expect(eventually { server.openConnections == 0 }, "\(ending): the connection stayed open")
                #expect(eventually { ledger.released == 1 }, "\(ending): the late hold was not released")
                client.closeNow()
            }
        }
    }

    @Test(
        "shutdown with requests held: the server stops within its deadline and releases every hold",
        arguments: PollerBackend.allCases)
    func shutdownWhileHeld(backend: PollerBackend) throws {
        let ledger = HoldLedger()
        var configuration = Self.patient(backend)
        configuration.shutdownTimeout = .milliseconds(500)
        let server = try HTTPServer.start(
            configuration: configuration, router: TestRoutes.holding(ledger), logger: .silent)
        let clients = try (0..<5).map { _ in try RawClient(port: server.port) }
        for client in clients { try client.send("GET /held HTTP/1.1\r\nHost: x\r\n\r\n") }
        #expect(eventually { ledger.held == 5 })
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            server.shutdown()
            server.wait()
            stopped.signal()
        }
        #expect(stopped.wait(timeout: .now() + 10) == .success, "the server did not stop")
        #expect(ledger.released == 5)
        for client in clients { #expect(client.isClosedByServer()) }
    }

    @Test(
        "each abandoned request is logged once, without its query, and counted with status 499",
        arguments: PollerBackend.allCases)
    func abandonedRequestsReported(backend: PollerBackend) throws {
        let ledger = HoldLedger()
        let lines = Mutex<[String]>([])
        let statuses = Mutex<[Int]>([])
        let logger = Logger { line in lines.withLock { $0.append(line) } }
        let server = try HTTPServer.start(
            configuration: Self.patient(backend), router: TestRoutes.holding(ledger), logger: logger
        ) { answered in
            if answered.route == "/held" { statuses.withLock { $0.append(answered.status) } }
        }
        defer {
            server.shutdown()
            server.wait()
        }
        let client = try RawClient(port: server.port)
        try client.send("GET /held?token=s3cr3t-value HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(eventually { ledger.held == 1 })
        client.closeNow()
        #expect(eventually { ledger.released == 1 })
        #expect(eventually { statuses.withLock { $0 } == [499] })
        let abandoned = lines.withLock { $0 }.filter { $0.contains("request abandoned") }
        #expect(abandoned.count == 1)
        let line = abandoned.first ?? ""
        for field in ["method=GET", "path=/held", "route=/held", "peer=127.0.0.1"] {
            #expect(line.contains(field), "\(field) missing from \(line)")
        }
        #expect(!lines.withLock { $0 }.contains { $0.contains("s3cr3t") }, "the query was logged")
    }
}
