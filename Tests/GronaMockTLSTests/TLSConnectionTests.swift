import Foundation
import GronaMockHTTP
import GronaMockPlatform
import GronaMockTLS
import GronaMockTestSupport
import Testing

/// The HTTP core's connection behaviour, over TLS: keep-alive, pipelining, large answers (writes that
/// block), uploads, half-close, framing errors and timeouts, on each poller backend.
@Suite("HTTP over TLS")
struct TLSConnectionTests {
    @Test(
        "one keep-alive TLS connection carries 100 requests, with TLS 1.3 and ALPN http/1.1",
        arguments: PollerBackend.allCases)
    func keepAlive(backend: PollerBackend) throws {
        let certificates = try TestCertificates()
        try withLiveServer(try tlsConfiguration(backend, certificates)) { server in
            let client = try RawClient(port: server.tlsPort, tls: certificates.client)
            #expect(client.tlsVersion == "TLSv1.3")
            #expect(client.alpn == "http/1.1")
            for index in 0..<100 {
                try client.send("GET /items/\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try client.readResponse().text == "{\"id\":\(index)}")
            }
        }
    }

    @Test(
        "a TLS client over the connection cap hears a TLS alert, not a plain-HTTP 503 it cannot read",
        arguments: PollerBackend.allCases)
    func overTheConnectionCap(backend: PollerBackend) throws {
        let certificates = try TestCertificates()
        var configuration = try tlsConfiguration(backend, certificates)
        configuration.maxConnections = 1
        try withLiveServer(configuration) { server in
            let first = try RawClient(port: server.tlsPort, tls: certificates.client)
            do {
                _ = try RawClient(port: server.tlsPort, tls: certificates.client)
                Issue.record("a second connection was served over a cap of one")
            } catch {
                #expect("\(error)".contains("alert internal error"), "\(error)")
            }
            try first.send("GET /items/1 HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try first.readResponse().text == "{\"id\":1}")
        }
    }

    @Test(
        "pipelined requests over TLS are answered in order, whichever finishes first",
        arguments: PollerBackend.allCases)
    func pipelining(backend: PollerBackend) throws {
        let certificates = try TestCertificates()
        try withLiveServer(try tlsConfiguration(backend, certificates)) { server in
            let client = try RawClient(port: server.tlsPort, tls: certificates.client)
            try client.send((0..<5).map { "GET /later/\((5 - $0) * 10)?id=\($0) HTTP/1.1\r\nHost: x\r\n\r\n" }.joined())
            for index in 0..<5 { #expect(try client.readResponse().text == "{\"id\":\"\(index)\"}") }
        }
    }

    @Test(
        "a 12 MiB answer to a slow reader arrives whole, and the connection goes on serving",
        arguments: PollerBackend.allCases)
    func largeAnswer(backend: PollerBackend) throws {
        let certificates = try TestCertificates()
        let body = (0..<12 * 1024 * 1024).map { UInt8(truncatingIfNeeded: $0 &+ $0 >> 8) }
        var router = TestRoutes.router()
        router.on(.get, "/big") { _ in
            HTTPResponse(status: .ok, headers: ["Content-Type": "application/octet-stream"], body: body)
        }
        var configuration = try tlsConfiguration(backend, certificates)
        configuration.idleTimeout = .seconds(30)
        try withLiveServer(configuration, router: router) { server in
            let client = try RawClient(port: server.tlsPort, tls: certificates.client, timeout: 20)
            client.shrinkReceiveBuffer(to: 65536)
            try client.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            let big = try client.readResponse()
            #expect(big.body == body)
            #expect(try client.readResponse().text == "{\"hello\":\"world\"}")
        }
    }

    @Test("a chunked upload over TLS arrives whole", arguments: PollerBackend.allCases)
    func chunkedUpload(backend: PollerBackend) throws {
        let certificates = try TestCertificates()
        try withLiveServer(try tlsConfiguration(backend, certificates)) { server in
            let client = try RawClient(port: server.tlsPort, tls: certificates.client)
            try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            try client.send("5\r\nhello\r\n")
            try client.send("6\r\n world\r\n0\r\n\r\n")
            #expect(try client.readResponse().text == "hello world")
        }
    }

    @Test(
        "a client that half-closes (close_notify) after pipelined requests gets every answer, then the close",
        arguments: PollerBackend.allCases)
    func halfClose(backend: PollerBackend) throws {
        let certificates = try TestCertificates()
        try withLiveServer(try tlsConfiguration(backend, certificates)) { server in
            let client = try RawClient(port: server.tlsPort, tls: certificates.client)
            try client.send((0..<3).map { "GET /later/\((3 - $0) * 20)?id=\($0) HTTP/1.1\r\nHost: x\r\n\r\n" }.joined())
            client.finishSending()
            for index in 0..<3 { #expect(try client.readResponse().text == "{\"id\":\"\(index)\"}") }
            #expect(client.isClosedByServer())
        }
    }

    @Test(
        "framing errors over TLS: 400 and close",
        arguments: PollerBackend.allCases,
        [
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc",
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
            "GET /hello HTTP/1.1\r\n\r\n",
            "GET  /hello HTTP/1.1\r\nHost: x\r\n\r\n",
        ])
    func framingErrors(backend: PollerBackend, request: String) throws {
        let certificates = try TestCertificates()
        try withLiveServer(try tlsConfiguration(backend, certificates)) { server in
            let client = try RawClient(port: server.tlsPort, tls: certificates.client)
            try client.send(request)
            let response = try client.readResponse()
            #expect(response.status == 400)
            #expect(response.text.contains("\"code\":\"bad_request\""))
            #expect(response.header("Connection") == "close")
            #expect(client.isClosedByServer())
        }
    }

    @Test(
        "a TLS request head not complete within the header timeout: 408 and close",
        arguments: PollerBackend.allCases)
    func headerTimeout(backend: PollerBackend) throws {
        let certificates = try TestCertificates()
        try withLiveServer(try tlsConfiguration(backend, certificates)) { server in
            let client = try RawClient(port: server.tlsPort, tls: certificates.client)
            try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n")
            #expect(try client.readResponse().status == 408)
            #expect(client.isClosedByServer())
        }
    }

    @Test(
        "plain HTTP sent to the TLS port gets a 400 https_required naming the https URL, in the clear, then the close",
        arguments: PollerBackend.allCases)
    func plainHTTPToTLSPort(backend: PollerBackend) throws {
        let certificates = try TestCertificates()
        try withLiveServer(try tlsConfiguration(backend, certificates, plainToo: true)) { server in
            let client = try RawClient(port: server.tlsPort)
            try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 400)
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.header("Connection") == "close")
            #expect(response.text.contains("\"code\":\"https_required\""))
            #expect(response.text.contains("https://127.0.0.1:\(server.tlsPort)/"))
            #expect(client.isClosedByServer())
            // The plain listener beside it serves as before.
            let plainPort = server.listeners.first { $0.scheme == "http" }?.port ?? 0
            #expect(try fetch(plainPort, "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
            #expect(
                server.listeners.map(\.url) == ["https://127.0.0.1:\(server.tlsPort)", "http://127.0.0.1:\(plainPort)"])
        }
    }
}
