import Foundation
import GronaReferenceHTTP
import Testing

/// The server on a real socket (127.0.0.1, port 0), with a toy handler: limits answered with their status, and
/// no input that stops it serving.
@Suite("HTTP server on a socket")
struct HTTPServerTests {
    /// Runs `body` against a fresh server and stops the server afterwards, pass or fail.
    static func withServer(_ body: (UInt16) throws -> Void) throws {
        let server = try HTTPServer(port: 0, timeoutSeconds: 5) { request in
            HTTPResponse(status: 200, body: Array("\(request.method) \(request.path) \(request.body.count)".utf8))
        }
        server.start()
        defer { server.stop() }
        try body(server.port)
    }

    static func stillServes(_ port: UInt16) throws -> Bool {
        let response = try RawClient.exchange(port, "GET /alive HTTP/1.1\r\nHost: x\r\n\r\n")
        return RawClient.status(response) == 200 && response.hasSuffix("GET /alive 0")
    }

    @Test("a request is answered, with Content-Length and Connection: close")
    func answers() throws {
        try Self.withServer { port in
            let response = try RawClient.exchange(port, "POST /x HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc")
            #expect(response.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(response.contains("Content-Length: 9\r\n"))
            #expect(response.contains("Connection: close\r\n"))
            #expect(response.hasSuffix("POST /x 3"))
        }
    }

    @Test("a 204 has no body and no Content-Length")
    func noContent() throws {
        let server = try HTTPServer(port: 0) { _ in HTTPResponse(status: 204, body: Array("ignored".utf8)) }
        server.start()
        defer { server.stop() }
        let response = try RawClient.exchange(server.port, "DELETE /clients/1 HTTP/1.1\r\n\r\n")
        #expect(response == "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
    }

    @Test("Expect: 100-continue gets 100 Continue before the body, then the answer")
    func expectContinue() throws {
        try Self.withServer { port in
            let client = try RawClient(port: port)
            defer { client.close() }
            client.send("POST /c HTTP/1.1\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
            #expect(client.readSome() == "HTTP/1.1 100 Continue\r\n\r\n")
            client.send("body")
            let response = client.readAll()
            #expect(response.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(response.hasSuffix("POST /c 4"))
        }
    }

    @Test("a body over 1 MiB is answered 413 before it is read, and the server goes on")
    func oversizedBody() throws {
        try Self.withServer { port in
            let client = try RawClient(port: port)
            defer { client.close() }
            client.send("POST /clients HTTP/1.1\r\nContent-Length: 2000000\r\n\r\n")
            client.send([UInt8](repeating: 0x61, count: 200_000))
            let response = client.readAll()
            #expect(RawClient.status(response) == 413)
            #expect(response.contains("{\"error\": "))
            #expect(try Self.stillServes(port))
        }
    }

    @Test("a head over 16 KiB is answered 431, and the server goes on")
    func oversizedHead() throws {
        try Self.withServer { port in
            let request = "GET / HTTP/1.1\r\nX-Long: " + String(repeating: "a", count: 20_000) + "\r\n\r\n"
            let answer = try RawClient.exchange(port, request)
            #expect(RawClient.status(answer) == 431)
            let endless = "GET / HTTP/1.1\r\nX-Long: " + String(repeating: "a", count: 40_000)
            let endlessAnswer = try RawClient.exchange(port, endless)
            #expect(RawClient.status(endlessAnswer) == 431)
            #expect(try Self.stillServes(port))
        }
    }

    @Test("garbage is answered 400; a client that leaves early is let go; the server goes on")
    func garbage() throws {
        try Self.withServer { port in
            let tls = try RawClient.exchange(port, "\u{16}\u{03}\u{01}garbage\r\n\r\n")
            #expect(RawClient.status(tls) == 400)
            let chunked = try RawClient.exchange(port, "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n")
            #expect(RawClient.status(chunked) == 501)
            // Leaves before sending anything, in the middle of the head, and in the middle of the body.
            for partial in ["", "GET / HT", "POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc"] {
                let client = try RawClient(port: port)
                client.send(partial)
                client.shutdownWrite()
                #expect(client.readAll().isEmpty)
                client.close()
            }
            var generator = SplitMix64(seed: 7)
            for _ in 0..<40 {
                let bytes = (0..<Int(generator.next() % 2_000)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                let client = try RawClient(port: port)
                client.send(bytes + Array("\r\n\r\n".utf8))
                client.shutdownWrite()
                let response = client.readAll()
                #expect(response.isEmpty || RawClient.status(response) != nil)
                client.close()
            }
            #expect(try Self.stillServes(port))
        }
    }
}
