import Foundation
import GronaMockHTTP
import GronaMockPlatform
import GronaMockTLS
import GronaMockTestSupport
import Testing

/// Clients that give up part-way over TLS, at every stage: before saying anything, mid-handshake (a record
/// cut short, or a whole ClientHello and no reply to the server's flight), mid-head and mid-body. Whatever
/// the stage, the server closes the socket (at the latest at the header timeout, 400 ms here) and the
/// connection gauge returns to zero, as the plain-HTTP abort tests check.
@Suite("TLS clients that abort")
struct TLSAbortTests {
    /// How a client gives up.
    enum Ending: CaseIterable, CustomStringConvertible {
        case close, reset, silence

        var description: String {
            switch self {
            case .close: "close"
            case .reset: "reset"
            case .silence: "silence"
            }
        }

        /// Ends `client`; `silence` keeps the socket open and lets the server's timeout act.
        func end(_ client: RawClient) {
            switch self {
            case .close: client.closeNow()
            case .reset: client.reset()
            case .silence: break
            }
        }
    }

    /// A real ClientHello (TLS 1.3 with 1.2, SNI localhost, ALPN http/1.1), made by Python's ssl on memory
    /// BIOs, so a raw client can send it and then stop answering, as a client stopped mid-handshake.
    static func clientHello() throws -> [UInt8] {
        let script = """
            import ssl, sys
            context = ssl.create_default_context()
            context.set_alpn_protocols(["http/1.1"])
            incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
            tls = context.wrap_bio(incoming, outgoing, server_hostname="localhost")
            try:
                tls.do_handshake()
            except ssl.SSLWantReadError:
                pass
            sys.stdout.write(outgoing.read().hex())
            """
        let run = try runTool(["python3", "-c", script])
        let hex = Array(run.output.utf8)
        guard run.status == 0, hex.count > 10, hex.count % 2 == 0 else {
            throw RawClient.Failure(description: "no ClientHello: \(run.all)")
        }
        return stride(from: 0, to: hex.count, by: 2).compactMap {
            UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16)
        }
    }

    private static func expectAllClosed(_ server: HTTPServer, _ what: String) {
        #expect(eventually(seconds: 10) { server.openConnections == 0 }, "a connection was left open after \(what)")
    }

    @Test(
        "a client that connects to the TLS port and says nothing is closed at the header timeout",
        arguments: PollerBackend.allCases)
    func silentClient(backend: PollerBackend) throws {
        let certificates = try TestCertificates()
        try withLiveServer(try tlsConfiguration(backend, certificates)) { server in
            let client = try RawClient(port: server.tlsPort)
            #expect(eventually { server.openConnections == 1 })
            #expect(client.isClosedByServer())
            Self.expectAllClosed(server, "a silent client")
        }
    }

    @Test(
        "a client stopped mid-handshake (a cut record, or no reply to the server's flight), or closing or resetting there, is closed",
        arguments: PollerBackend.allCases)
    func midHandshake(backend: PollerBackend) throws {
        let certificates = try TestCertificates()
        let hello = try Self.clientHello()
        try withLiveServer(try tlsConfiguration(backend, certificates)) { server in
            for prefix in [1, 5, hello.count / 2, hello.count] {
                for ending in Ending.allCases {
                    let client = try RawClient(port: server.tlsPort)
                    try client.send(Array(hello.prefix(prefix)))
                    ending.end(client)
                    if ending == .silence {
                        // The whole hello has an answer (the server's flight) before the close; a cut one none.
                        let received = try client.readUntilClosed()
                        #expect(prefix == hello.count ? received.first == 0x16 : received.isEmpty)
                    }
                    Self.expectAllClosed(server, "\(ending) after \(prefix) bytes of the ClientHello")
                }
            }
        }
    }

    @Test(
        "a TLS client that stops mid-head or mid-body, by close, reset or silence, leaves no connection open",
        arguments: PollerBackend.allCases)
    func midRequest(backend: PollerBackend) throws {
        let certificates = try TestCertificates()
        let request =
            Array("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 200\r\n\r\n".utf8)
            + Array(repeating: 0x61, count: 200)
        var configuration = try tlsConfiguration(backend, certificates)
        configuration.bodyTimeout = .milliseconds(400)
        try withLiveServer(configuration) { server in
            // Mid-line, mid-head, just after the head, and mid-body.
            for cut in [3, 25, request.count - 200, request.count - 100] {
                for ending in Ending.allCases {
                    let client = try RawClient(port: server.tlsPort, tls: certificates.client)
                    try client.send(Array(request.prefix(cut)))
                    ending.end(client)
                    if ending == .silence {
                        // The header or body timeout answers 408 and closes.
                        #expect(try client.readResponse().status == 408)
                        #expect(client.isClosedByServer())
                    }
                    Self.expectAllClosed(server, "\(ending) after \(cut) bytes of a request")
                }
            }
            // And the server still serves.
            let client = try RawClient(port: server.tlsPort, tls: certificates.client)
            try client.send(request)
            #expect(try client.readResponse().body.count == 200)
        }
    }

    @Test("shutdown closes idle TLS connections at once and returns", arguments: PollerBackend.allCases)
    func shutdownClosesIdle(backend: PollerBackend) throws {
        let certificates = try TestCertificates()
        var configuration = try tlsConfiguration(backend, certificates)
        configuration.idleTimeout = .seconds(30)
        let server = try HTTPServer.start(configuration: configuration, router: TestRoutes.router(), logger: .silent)
        let client = try RawClient(port: server.tlsPort, tls: certificates.client)
        try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().status == 200)
        server.shutdown()
        server.wait()
        #expect(client.isClosedByServer())
        #expect(server.openConnections == 0)
    }

    /// A drop or truncate fault imitates a broken network; a close_notify after it would tell the client that
    /// what it read is whole (RFC 9112 §9.8), which a close-delimited body cannot contradict.
    @Test(
        "an answer cut on purpose (drop, truncate) ends with no close_notify; a whole answer's close has one",
        arguments: PollerBackend.allCases)
    func cutAnswersEndWithoutCloseNotify(backend: PollerBackend) throws {
        let certificates = try TestCertificates()
        var router = TestRoutes.router()
        router.on(.get, "/cut/{how}") { request in
            var response = HTTPResponse.json(String(repeating: "x", count: 1000))
            response.delivery = request.pathParameters["how"] == "drop" ? .dropConnection : .truncated(afterBytes: 10)
            return response
        }
        try withLiveServer(try tlsConfiguration(backend, certificates), router: router) { server in
            for how in ["drop", "truncate"] {
                let client = try RawClient(port: server.tlsPort, tls: certificates.client)
                try client.send("GET /cut/\(how) HTTP/1.1\r\nHost: x\r\n\r\n")
                let received = try client.readUntilClosed()
                #expect(!client.endedWithCloseNotify, "\(how): \(received.count) bytes, then close_notify")
            }
            let whole = try RawClient(port: server.tlsPort, tls: certificates.client)
            try whole.send("GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(String(decoding: try whole.readUntilClosed(), as: UTF8.self).hasSuffix("{\"hello\":\"world\"}"))
            #expect(whole.endedWithCloseNotify)
        }
    }

    /// An HTTP/1.0 client reads a streamed body to the close: close_notify there would make a body the
    /// shutdown deadline cut look whole.
    @Test("a streamed body cut by the shutdown deadline ends with no close_notify", arguments: PollerBackend.allCases)
    func shutdownCutsAStreamWithoutCloseNotify(backend: PollerBackend) throws {
        let certificates = try TestCertificates()
        var configuration = try tlsConfiguration(backend, certificates)
        configuration.shutdownTimeout = .milliseconds(200)
        var router = TestRoutes.router()
        router.on(.get, "/stalled") { _ in
            var response = HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain"])
            // A producer that never makes its first piece: the head is sent, the body never ends.
            response.stream = HTTPBodyStream(state: 0, executor: { _ in }, next: { _ in nil })
            return response
        }
        try withLiveServer(configuration, router: router) { server in
            let client = try RawClient(port: server.tlsPort, tls: certificates.client)
            try client.send("GET /stalled HTTP/1.0\r\nHost: x\r\n\r\n")
            #expect(client.hasDataAvailable(waitingMilliseconds: 5_000))
            server.shutdown()
            let received = String(decoding: try client.readUntilClosed(), as: UTF8.self)
            #expect(received.hasPrefix("HTTP/1.1 200"), "\(received)")
            #expect(!client.endedWithCloseNotify)
        }
    }
}
