import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// Clients that give up part-way: a phone losing signal mid-upload, a load tool stopped mid-run. Whatever
/// state the connection is in, the server must notice the client's end and close its socket, at the latest
/// when that state's timeout passes; otherwise sockets pile up in CLOSE_WAIT until every new client is
/// refused with 503 `too_many_connections`.
@Suite("Clients that abort", .serialized)
struct ClientAbortTests {
    /// How a client gives up after sending a prefix of a request.
    enum Ending: CaseIterable, CustomStringConvertible {
        /// `close()`: a FIN, and a reset if the server writes afterwards.
        case close
        /// `shutdown(SHUT_WR)`: the client could still read an answer (RFC 9112 §9.6).
        case halfClose
        /// SO_LINGER 0: a reset, as a killed process.
        case reset

        var description: String {
            switch self {
            case .close: "close"
            case .halfClose: "half-close"
            case .reset: "reset"
            }
        }
    }

    /// A valid request for one endpoint, and where its parts start, so cuts land in every part.
    struct Sample {
        var name: String
        var bytes: [UInt8]
        /// The server holds the whole request on purpose (a long-poll): a client that finishes sending then is
        /// taken as gone, and gets no answer (`HTTPResponder.hold`).
        var held = false

        /// Offsets spread over the request line, the header fields, the body (and chunk sizes and data), and
        /// one byte short of the end.
        var cuts: [Int] {
            let text = String(decoding: bytes, as: UTF8.self)
            let headEnd =
                (text.range(of: "\r\n\r\n").map { text.utf8.distance(from: text.startIndex, to: $0.upperBound) })
                ?? bytes.count
            var offsets: Set<Int> = [1, 5, 12, headEnd / 2, headEnd - 3, headEnd - 1, bytes.count - 1]
            let bodyLength = bytes.count - headEnd
            if bodyLength > 0 {
                offsets.formUnion([headEnd, headEnd + 1, headEnd + bodyLength / 3, headEnd + bodyLength * 2 / 3])
            }
            return offsets.filter { $0 > 0 && $0 < bytes.count }.sorted()
        }
    }

    static let timeouts: Duration = .seconds(3)

    static func samples() -> [Sample] {
        let batch = EventsAPI.envelope([SampleEvents.placementEvent("exposure", id: "e-1")]).serialized()
        let chunked =
            Array("POST /v1/mobile/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n".utf8)
            + Array("Transfer-Encoding: chunked\r\n\r\n".utf8) + chunk(Array(batch.prefix(40)))
            + chunk(Array(batch.dropFirst(40))) + Array("0\r\n\r\n".utf8)
        let gzip = EventsAPI.request(Gzip.compress(batch), encoding: "gzip")
        let grants = "{\"customerID\":\"customer-1\"}"
        let workspace = MockFixture.workspace("copy", secret: "sk_test_copy_secret")
        let faults =
            "{\"endpoint\":\"events\",\"kind\":\"status\",\"status\":503,\"count\":1,\"workspaceKey\":\"nobody\"}"
        return [
            Sample(
                name: "config GET",
                bytes: Array(
                    "GET /v1/mobile/workspaces/shop/config HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n\r\n".utf8
                )),
            Sample(
                name: "jwks GET",
                bytes: Array("GET /v1/mobile/workspaces/shop/jwks.json HTTP/1.1\r\nHost: x\r\n\r\n".utf8)),
            Sample(
                name: "grants POST",
                bytes: Array(
                    ("POST /v1/mobile/grants HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        + "Authorization: Bearer sk_test_shop_secret\r\nContent-Length: \(grants.utf8.count)\r\n\r\n"
                        + grants).utf8)),
            Sample(name: "events POST", bytes: EventsAPI.request(batch)),
            Sample(name: "events POST chunked", bytes: chunked),
            Sample(name: "events POST gzip", bytes: gzip),
            Sample(name: "workspace PUT", bytes: put("/_mock/workspaces/copy", workspace)),
            Sample(name: "clock POST", bytes: post("/_mock/clock", "{\"advanceMs\":1000}")),
            Sample(name: "faults POST", bytes: post("/_mock/faults", faults)),
            Sample(
                name: "events wait GET",
                bytes: Array(
                    "GET /_mock/events/wait?workspace=shop&count=1000&timeoutMs=200 HTTP/1.1\r\nHost: x\r\n\r\n".utf8
                ), held: true),
        ]
    }

    static func chunk(_ bytes: [UInt8]) -> [UInt8] {
        Array((String(bytes.count, radix: 16) + "\r\n").utf8) + bytes + Array("\r\n".utf8)
    }

    static func post(_ target: String, _ body: String, method: String = "POST") -> [UInt8] {
        Array(
            "\(method) \(target) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                .utf8)
    }

    static func put(_ target: String, _ body: String) -> [UInt8] { post(target, body, method: "PUT") }

    /// Client connections the server holds open, from `/_mock/metrics`, less the probe's own.
    static func openConnections(_ port: Int) throws -> Int {
        let response = try fetch(port, "GET /_mock/metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let samples = try PrometheusText.parse(response.text)
        let open = samples.first { $0.name == "grona_open_connections" }?.value ?? -1
        return Int(open) - 1
    }

    static func withServer<T>(staticDirectory: String? = nil, _ body: (GronaMockServer) throws -> T) throws -> T {
        let fixture = try MockFixture.standard()
        var configuration = fixture.configuration()
        configuration.http.headerTimeout = timeouts
        configuration.http.bodyTimeout = timeouts
        configuration.http.writeTimeout = timeouts
        configuration.staticDirectory = staticDirectory
        let server = try GronaMockServer.start(configuration, logger: .silent)
        defer {
            server.shutdown()
            server.wait()
        }
        return try body(server)
    }

    /// Waits the state's timeout and a margin for the connection count to reach zero.
    static func expectAllClosed(_ port: Int, _ what: String) throws {
        let closed = try eventually(seconds: 5) { try openConnections(port) == 0 }
        let left = try openConnections(port)
        #expect(closed, "still open after \(what): \(left) connection(s)")
    }

    @Test("a request cut at any byte and then closed, half-closed or reset leaves no connection open")
    func cutRequests() throws {
        try Self.withServer { server in
            for sample in Self.samples() {
                for cut in sample.cuts {
                    for ending in Ending.allCases {
                        let client = try RawClient(port: server.port)
                        try client.send(Array(sample.bytes.prefix(cut)))
                        switch ending {
                        case .close: client.closeNow()
                        case .halfClose: client.finishSending()
                        case .reset: client.reset()
                        }
                        try Self.expectAllClosed(
                            server.port, "\(sample.name) cut at \(cut) of \(sample.bytes.count), \(ending)")
                        client.closeNow()
                    }
                }
            }
        }
    }

    @Test(
        "a whole request followed by a half-close still gets its answer, then the connection closes; a held one is dropped at once"
    )
    func halfCloseAfterWholeRequest() throws {
        try Self.withServer { server in
            for sample in Self.samples() {
                let client = try RawClient(port: server.port)
                try client.send(sample.bytes)
                client.finishSending()
                if sample.held {
                    let received = try client.readUntilClosed()
                    #expect(received.isEmpty, "\(sample.name): a held request's client that half-closed was answered")
                    client.closeNow()
                    try Self.expectAllClosed(server.port, "\(sample.name) held, then a half-close")
                    continue
                }
                let response = try client.readResponse()
                #expect(response.status < 500, "\(sample.name) answered \(response.status)")
                #expect(client.isClosedByServer(), "\(sample.name): the server kept the connection")
                client.closeNow()
                try Self.expectAllClosed(server.port, "\(sample.name) after its answer")
            }
        }
    }

    @Test("pipelined whole requests and a cut one, then a half-close: the whole ones are answered")
    func pipelinedThenCut() throws {
        try Self.withServer { server in
            let get = Array("GET /v1/mobile/workspaces/shop/jwks.json HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
            let events = Self.samples().first { $0.name == "events POST" }!.bytes
            let client = try RawClient(port: server.port)
            try client.send(get + get + Array(events.prefix(events.count - 10)))
            client.finishSending()
            #expect(try client.readResponse().status == 200)
            #expect(try client.readResponse().status == 200)
            #expect(client.isClosedByServer())
            client.closeNow()
            try Self.expectAllClosed(server.port, "two answers and a dropped third request")
        }
    }

    @Test("a client parked in a long-poll or a delay fault that goes away is closed")
    func parkedClientsGoAway() throws {
        try Self.withServer { server in
            let fault = Self.post(
                "/_mock/faults", "{\"endpoint\":\"config\",\"kind\":\"delay\",\"delayMs\":300,\"count\":3}")
            #expect(try fetch(server.port, String(decoding: fault, as: UTF8.self)).status == 201)
            let parked = [
                "GET /_mock/events/wait?workspace=shop&count=1000&timeoutMs=300 HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /v1/mobile/workspaces/shop/config HTTP/1.1\r\nHost: x\r\n\r\n",
            ]
            for request in parked {
                for ending in Ending.allCases {
                    let client = try RawClient(port: server.port)
                    try client.send(request)
                    switch ending {
                    case .close: client.closeNow()
                    case .halfClose: client.finishSending()
                    case .reset: client.reset()
                    }
                    try Self.expectAllClosed(server.port, "\(request.prefix(40)) then \(ending)")
                    client.closeNow()
                }
            }
        }
    }

    @Test("a client that stops reading a large response is disconnected by the write timeout")
    func stalledReader() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("grona-static-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(repeating: 0x61, count: 12 * 1024 * 1024).write(to: directory.appendingPathComponent("big.txt"))
        try Self.withServer(staticDirectory: directory.path) { server in
            // Reads nothing: the response stays queued until the write timeout.
            let stalled = try RawClient(port: server.port)
            stalled.shrinkReceiveBuffer()
            try stalled.send("GET /_mock/static/big.txt HTTP/1.1\r\nHost: x\r\n\r\n")
            // Reads a little, then closes with most of the response unread (a reset).
            let quitter = try RawClient(port: server.port)
            quitter.shrinkReceiveBuffer()
            try quitter.send("GET /_mock/static/big.txt HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try Self.openConnections(server.port) == 2)
            quitter.closeNow()
            try Self.expectAllClosed(server.port, "a stalled reader and one that quit")
            // The server still serves.
            #expect(try fetch(server.port, "GET /_mock/health HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
        }
    }

    @Test("many aborted uploads never exhaust the connection cap")
    func abortsDoNotExhaustTheCap() throws {
        let fixture = try MockFixture.standard()
        var configuration = fixture.configuration()
        configuration.http.maxConnections = 20
        let server = try GronaMockServer.start(configuration, logger: .silent)
        defer {
            server.shutdown()
            server.wait()
        }
        let events = Self.samples().first { $0.name == "events POST" }!.bytes
        for index in 0..<60 {
            let client = try RawClient(port: server.port)
            try client.send(Array(events.prefix(events.count / 2)))
            if index.isMultiple(of: 2) { client.finishSending() } else { client.closeNow() }
            // Each client's end is noticed, so the 21st and later are not refused.
            #expect(try eventually(seconds: 5) { try Self.openConnections(server.port) <= 1 })
        }
        #expect(try fetch(server.port, "GET /_mock/health HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
    }

    @Test("while clients abort in every way, a steady client is served and every acknowledged event is stored")
    func othersKeepBeingServed() throws {
        try Self.withServer { server in
            let acknowledged = Mutex<[String]>([])
            let failures = Mutex<[String]>([])
            let stop = Atomic<Bool>(false)
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                var index = 0
                while !stop.load(ordering: .relaxed) {
                    let id = "steady-\(index)"
                    index += 1
                    do {
                        let answer = try EventsAPI.post(
                            server.port, events: [SampleEvents.placementEvent("exposure", id: id)])
                        if answer.status == 200 {
                            acknowledged.withLock { $0.append(id) }
                        } else {
                            failures.withLock { $0.append("\(id): \(answer.status)") }
                        }
                    } catch {
                        failures.withLock { $0.append("\(id): \(error)") }
                    }
                }
                done.signal()
            }
            // Storm until the steady client has been served a good number of times (bounded rounds).
            for _ in 0..<300 where acknowledged.withLock({ $0.count }) < 50 {
                for sample in Self.samples() {
                    for cut in sample.cuts {
                        let client = try RawClient(port: server.port)
                        try client.send(Array(sample.bytes.prefix(cut)))
                        cut.isMultiple(of: 2) ? client.finishSending() : client.closeNow()
                    }
                }
            }
            stop.store(true, ordering: .relaxed)
            done.wait()
            let acked = acknowledged.withLock { $0 }
            #expect(failures.withLock { $0 } == [])
            #expect(acked.count >= 50)
            // Every page: the steady client may have stored more than one page holds.
            var stored: Set<String> = []
            var cursor: String?
            repeat {
                let page = try EventsAPI.listed(
                    server.port, "workspace=shop&limit=1000" + (cursor.map { "&cursor=\($0)" } ?? ""))
                stored.formUnion(page.events.compactMap { $0["eventID"]?.stringValue })
                cursor = page.nextCursor
            } while cursor != nil
            #expect(Set(acked).subtracting(stored).isEmpty, "acknowledged but not stored")
            try Self.expectAllClosed(server.port, "the abort storm")
        }
    }
}
