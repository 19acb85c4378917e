import Foundation
import GronaMockHTTP
import GronaMockPlatform
import GronaMockTestSupport
import Testing

// Over 400 lines on purpose: the HTTP core on a real socket, on each poller backend, section by section
// (keep-alive, pipelining, timeouts, framing errors, limits, shutdown).

// Every live test here runs once per poller backend: epoll and poll(2) on Linux, poll(2) alone on macOS.

@Suite("HTTP server, live on 127.0.0.1")
struct HTTPServerLiveTests {
    @Test("one keep-alive connection carries 100 requests", arguments: PollerBackend.allCases)
    func keepAliveCarriesManyRequests(backend: PollerBackend) throws {
        try withLiveServer(.on(backend)) { server in
            let client = try RawClient(port: server.port)
            for index in 0..<100 {
                try client.send("GET /items/\(index) HTTP/1.1\r\nHost: localhost\r\n\r\n")
                let response = try client.readResponse()
                #expect(response.status == 200)
                #expect(response.text == "{\"id\":\(index)}")
                #expect(response.header("Connection") == nil)
            }
        }
    }

    @Test(
        "10 pipelined requests are answered in request order, even when handlers finish out of order",
        arguments: PollerBackend.allCases)
    func pipelinedRequestsInOrder(backend: PollerBackend) throws {
        try withLiveServer(.on(backend)) { server in
            let client = try RawClient(port: server.port)
            // Earlier requests take longer, so their handlers finish last.
            let requests = (0..<10).map { index in
                "GET /later/\((10 - index) * 15)?id=\(index) HTTP/1.1\r\nHost: localhost\r\n\r\n"
            }
            try client.send(requests.joined())
            for index in 0..<10 {
                let response = try client.readResponse()
                #expect(response.status == 200)
                #expect(response.text == "{\"id\":\"\(index)\"}")
            }
        }
    }

    @Test(
        "after an answer larger than the read-ahead limit, the connection goes on serving requests",
        arguments: PollerBackend.allCases)
    func keepAliveAfterLargeAnswer(backend: PollerBackend) throws {
        // 12 MiB: more than the socket buffers hold (4 MiB at most for sending, on Linux) and the 4 MiB of
        // queued answers at which reading pauses.
        let body = (0..<12 * 1024 * 1024).map { UInt8(truncatingIfNeeded: $0 &+ $0 >> 8) }
        var router = TestRoutes.router()
        router.on(.get, "/big") { _ in
            HTTPResponse(status: .ok, headers: ["Content-Type": "application/octet-stream"], body: body)
        }
        // The idle timeout starts when the last bytes are handed to the kernel, which may hold megabytes the
        // client has still to read: the short one of the live tests could expire before the next request.
        var configuration = HTTPServer.Configuration.on(backend)
        configuration.idleTimeout = .seconds(30)
        try withLiveServer(configuration, router: router) { server in
            let client = try RawClient(port: server.port, timeout: 20)
            client.shrinkReceiveBuffer(to: 65536)
            // Pipelined: the second request is already buffered when the first answer fills the queue.
            try client.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            let big = try client.readResponse()
            #expect(big.body.count == body.count)
            #expect(try client.readResponse().text == "{\"hello\":\"world\"}")
            // Sent after: the socket is read again too.
            try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try client.readResponse().status == 200)
        }
    }

    @Test("a chunked upload arrives whole", arguments: PollerBackend.allCases)
    func chunkedUpload(backend: PollerBackend) throws {
        try withLiveServer(.on(backend)) { server in
            let client = try RawClient(port: server.port)
            try client.send("POST /echo HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n")
            try client.send("5\r\nhello\r\n")
            try client.send("1;ext=1\r\n \r\n6\r\nworld!\r\n0\r\nX-Trailer: yes\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "hello world!")
            #expect(response.header("Content-Length") == "12")
        }
    }

    @Test("Expect: 100-continue gets 100 Continue before the body is sent", arguments: PollerBackend.allCases)
    func expectContinue(backend: PollerBackend) throws {
        try withLiveServer(.on(backend)) { server in
            let client = try RawClient(port: server.port)
            try client.send(
                "POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
            let interim = try client.readResponse()
            #expect(interim.status == 100)
            try client.send("ping")
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "ping")
        }
    }

    @Test(
        "Expect: 100-continue with a body over the limit gets 413 without sending the body",
        arguments: PollerBackend.allCases)
    func expectContinueTooLarge(backend: PollerBackend) throws {
        try withLiveServer(.on(backend)) { server in
            let client = try RawClient(port: server.port)
            try client.send(
                "POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5000\r\nExpect: 100-continue\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 413)
            #expect(response.header("Connection") == "close")
        }
    }

    @Test("HEAD gets the GET route's headers and no body", arguments: PollerBackend.allCases)
    func headRequest(backend: PollerBackend) throws {
        try withLiveServer(.on(backend)) { server in
            let client = try RawClient(port: server.port)
            try client.send("HEAD /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let head = try client.readResponse(forHead: true)
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == "17")
            try client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let get = try client.readResponse()
            #expect(get.text == "{\"hello\":\"world\"}")
        }
    }

    @Test(
        "an HTTP/1.0 client gets its answer and the connection closes, unless it asked for keep-alive",
        arguments: PollerBackend.allCases)
    func http10(backend: PollerBackend) throws {
        try withLiveServer(.on(backend)) { server in
            let plain = try RawClient(port: server.port)
            try plain.send("GET /hello HTTP/1.0\r\n\r\n")
            let response = try plain.readResponse()
            #expect(response.status == 200)
            #expect(response.header("Connection") == "close")
            #expect(plain.isClosedByServer())

            let keepAlive = try RawClient(port: server.port)
            for _ in 0..<2 {
                try keepAlive.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                let answer = try keepAlive.readResponse()
                #expect(answer.header("Connection") == "keep-alive")
            }
        }
    }

    @Test("Connection: close is honoured after the response", arguments: PollerBackend.allCases)
    func connectionClose(backend: PollerBackend) throws {
        try withLiveServer(.on(backend)) { server in
            let client = try RawClient(port: server.port)
            try client.send(
                "GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.header("Connection") == "close")
            #expect(client.isClosedByServer())
        }
    }

    @Test("a client that half-closes after its request still gets the answer to it", arguments: PollerBackend.allCases)
    func halfCloseAfterRequest(backend: PollerBackend) throws {
        let gate = Gate()
        defer { gate.open() }
        try withLiveServer(.on(backend), router: TestRoutes.router(gate: gate)) { server in
            let client = try RawClient(port: server.port)
            try client.send("GET /gate HTTP/1.1\r\nHost: x\r\n\r\n")
            client.finishSending()
            #expect(gate.waitForEntry())
            gate.open()
            let response = try client.readResponse()
            #expect(response.text == "{\"gate\":\"passed\"}")
            #expect(client.isClosedByServer())
        }
    }

    @Test(
        "pipelined requests from a client that half-closes are all answered before the close",
        arguments: PollerBackend.allCases)
    func pipelinedThenHalfClose(backend: PollerBackend) throws {
        try withLiveServer(.on(backend)) { server in
            let client = try RawClient(port: server.port)
            let requests = (0..<3).map { "GET /later/\((3 - $0) * 20)?id=\($0) HTTP/1.1\r\nHost: x\r\n\r\n" }
            try client.send(requests.joined())
            client.finishSending()
            for index in 0..<3 {
                let response = try client.readResponse()
                #expect(response.text == "{\"id\":\"\(index)\"}")
            }
            #expect(client.isClosedByServer())
        }
    }

    @Test(
        "a client that vanishes while its answer is pending does not disturb the server",
        arguments: PollerBackend.allCases)
    func clientResetWhileDeferred(backend: PollerBackend) throws {
        let gate = Gate()
        defer { gate.open() }
        try withLiveServer(.on(backend), router: TestRoutes.router(gate: gate)) { server in
            do {
                let client = try RawClient(port: server.port)
                try client.send("GET /gate HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(gate.waitForEntry())
                client.reset()
            }
            // The server has noticed the reset (and closed its side) before the handler answers.
            #expect(eventually { server.openConnections == 0 })
            gate.open()
            let other = try RawClient(port: server.port)
            try other.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try other.readResponse().status == 200)
        }
    }

    @Test("404 and 405 carry the contract's JSON error body; 405 lists Allow", arguments: PollerBackend.allCases)
    func notFoundAndMethodNotAllowed(backend: PollerBackend) throws {
        try withLiveServer(.on(backend)) { server in
            let client = try RawClient(port: server.port)
            try client.send("GET /missing HTTP/1.1\r\nHost: x\r\n\r\n")
            let missing = try client.readResponse()
            #expect(missing.status == 404)
            #expect(missing.text.contains("\"code\":\"not_found\""))
            try client.send("DELETE /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            let wrongMethod = try client.readResponse()
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.header("Allow") == "GET, HEAD")
            #expect(wrongMethod.text.contains("\"code\":\"method_not_allowed\""))
        }
    }
}

@Suite("HTTP server rejections on a raw socket")
struct HTTPServerRejectionTests {
    @Test("request line and headers over 16 KiB: 431 and close", arguments: PollerBackend.allCases)
    func headersTooLarge(backend: PollerBackend) throws {
        try withLiveServer(.on(backend)) { server in
            let client = try RawClient(port: server.port)
            try client.send("GET /hello HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 17_000))\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 431)
            #expect(response.text.contains("header_fields_too_large"))
            #expect(response.header("Connection") == "close")
            #expect(client.isClosedByServer())
        }
    }

    @Test("more than 100 header fields: 431", arguments: PollerBackend.allCases)
    func tooManyHeaders(backend: PollerBackend) throws {
        try withLiveServer(.on(backend)) { server in
            let client = try RawClient(port: server.port)
            let fields = (0..<101).map { "X-\($0): v\r\n" }.joined()
            try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\(fields)\r\n")
            #expect(try client.readResponse().status == 431)
        }
    }

    @Test(
        "a body over the route's limit: 413 from Content-Length, before the body is read",
        arguments: PollerBackend.allCases)
    func bodyTooLarge(backend: PollerBackend) throws {
        try withLiveServer(.on(backend)) { server in
            let client = try RawClient(port: server.port)
            try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 413)
            #expect(response.text.contains("payload_too_large"))
            #expect(response.header("Connection") == "close")
        }
    }

    @Test("a chunked body that passes the limit: 413", arguments: PollerBackend.allCases)
    func chunkedBodyTooLarge(backend: PollerBackend) throws {
        try withLiveServer(.on(backend)) { server in
            let client = try RawClient(port: server.port)
            try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            try client.send("200\r\n\(String(repeating: "a", count: 512))\r\n")
            try client.send("300\r\n\(String(repeating: "b", count: 768))\r\n")
            #expect(try client.readResponse().status == 413)
        }
    }

    @Test("headers not complete within the header timeout: 408 and close", arguments: PollerBackend.allCases)
    func headerTimeout(backend: PollerBackend) throws {
        try withLiveServer(.on(backend)) { server in
            let client = try RawClient(port: server.port)
            try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n")
            let response = try client.readResponse()
            #expect(response.status == 408)
            #expect(response.text.contains("request_timeout"))
            #expect(client.isClosedByServer())
        }
    }

    @Test("bytes trickled slowly do not extend the header timeout", arguments: PollerBackend.allCases)
    func trickleDoesNotExtendTimeout(backend: PollerBackend) throws {
        try withLiveServer(.on(backend)) { server in
            let client = try RawClient(port: server.port)
            // A head that never ends, one byte at a time, each byte within the 400 ms header timeout of the
            // last: a server that restarted the timeout on every byte would never answer while it trickles.
            let head =
                Array("GET /hello HTTP/1.1\r\nHost: x\r\nX-Slow: ".utf8)
                + Array(repeating: UInt8(ascii: "a"), count: 200)
            var sentAll = true
            for byte in head {
                if (try? client.send([byte])) == nil || client.hasDataAvailable(waitingMilliseconds: 20) {
                    sentAll = false
                    break
                }
            }
            #expect(!sentAll, "the server never answered while the head trickled in")
            #expect(try client.readResponse().status == 408)
        }
    }

    @Test("an idle keep-alive connection is closed after the idle timeout", arguments: PollerBackend.allCases)
    func idleTimeout(backend: PollerBackend) throws {
        try withLiveServer(.on(backend)) { server in
            let client = try RawClient(port: server.port)
            try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try client.readResponse().status == 200)
            #expect(client.isClosedByServer())
        }
    }

    @Test(
        "framing errors: 400 and close",
        arguments: PollerBackend.allCases,
        [
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc",
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
            "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
            "GET /hello HTTP/1.1\r\n\r\n",
            "GET /hello HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n",
            "GET  /hello HTTP/1.1\r\nHost: x\r\n\r\n",
        ])
    func framingErrors(backend: PollerBackend, request: String) throws {
        try withLiveServer(.on(backend)) { server in
            let client = try RawClient(port: server.port)
            try client.send(request)
            let response = try client.readResponse()
            #expect(response.status == 400)
            #expect(response.text.contains("\"code\":\"bad_request\""))
            #expect(response.header("Connection") == "close")
            #expect(client.isClosedByServer())
        }
    }

    @Test("responses already owed are sent before the error that ends a pipeline", arguments: PollerBackend.allCases)
    func errorAfterPipelinedRequest(backend: PollerBackend) throws {
        try withLiveServer(.on(backend)) { server in
            let client = try RawClient(port: server.port)
            try client.send("GET /later/50?id=a HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE\r\n\r\n")
            let first = try client.readResponse()
            #expect(first.text == "{\"id\":\"a\"}")
            #expect(try client.readResponse().status == 400)
        }
    }

    @Test("connections beyond the cap are refused with 503, not dropped", arguments: PollerBackend.allCases)
    func connectionCap(backend: PollerBackend) throws {
        var configuration = HTTPServer.Configuration.on(backend)
        configuration.maxConnections = 2
        configuration.idleTimeout = .seconds(5)
        configuration.headerTimeout = .seconds(5)
        try withLiveServer(configuration) { server in
            let first = try RawClient(port: server.port)
            let second = try RawClient(port: server.port)
            try first.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try first.readResponse().status == 200)
            try second.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try second.readResponse().status == 200)
            let third = try RawClient(port: server.port)
            let refused = try third.readResponse()
            #expect(refused.status == 503)
            #expect(refused.text.contains("too_many_connections"))
            #expect(refused.header("Retry-After") == "1")
        }
    }
}

@Suite("HTTP server shutdown")
struct HTTPServerShutdownTests {
    @Test("shutdown lets a request in flight get its answer, then stops", arguments: PollerBackend.allCases)
    func shutdownWithRequestInFlight(backend: PollerBackend) throws {
        let gate = Gate()
        let server = try HTTPServer.start(
            configuration: .on(backend), router: TestRoutes.router(gate: gate), logger: .silent)
        defer { gate.open() }
        let client = try RawClient(port: server.port)
        try client.send("GET /gate HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(gate.waitForEntry())
        server.shutdown()
        gate.open()
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "{\"gate\":\"passed\"}")
        #expect(response.header("Connection") == "close")
        server.wait()
        #expect(throws: (any Error).self) { try RawClient(port: server.port) }
    }

    @Test("shutdown closes idle connections at once and returns", arguments: PollerBackend.allCases)
    func shutdownClosesIdle(backend: PollerBackend) throws {
        let server = try HTTPServer.start(
            configuration: .on(backend), router: TestRoutes.router(), logger: .silent)
        let client = try RawClient(port: server.port)
        try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().status == 200)
        server.shutdown()
        server.wait()
        #expect(client.isClosedByServer())
        #expect(server.openConnections == 0)
    }
}
