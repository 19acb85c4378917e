import Foundation
import GronaMockHTTP
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// Flow control, clients that give up, and answers from other threads, on each poller backend: the paths
/// where epoll and poll(2) differ (write interest, hang-ups, wake-ups).
@Suite("HTTP server flow, on each poller backend")
struct HTTPServerFlowTests {
    /// 8 MiB of a pattern that does not repeat every 256 bytes, so a reader can tell a shifted chunk.
    static let pattern: [UInt8] = (0..<8 * 1024 * 1024).map { UInt8(truncatingIfNeeded: $0 &+ $0 >> 8) }

    /// The toy routes, and `/big/{kib}`: that many KiB of `pattern`.
    static func router() -> Router {
        var router = TestRoutes.router()
        router.on(.get, "/big/{kib}") { request in
            let kib = min(Int(request.pathParameters["kib"] ?? "") ?? 0, 8 * 1024)
            return HTTPResponse(
                status: .ok, headers: ["Content-Type": "application/octet-stream"],
                body: Array(pattern.prefix(kib * 1024)))
        }
        return router
    }

    /// Long timeouts, so that a connection that closes was closed because the server noticed the client.
    static func patient(_ backend: PollerBackend) -> HTTPServer.Configuration {
        var configuration = HTTPServer.Configuration.on(backend)
        configuration.headerTimeout = .seconds(30)
        configuration.bodyTimeout = .seconds(30)
        configuration.idleTimeout = .seconds(30)
        configuration.writeTimeout = .seconds(30)
        return configuration
    }

    @Test(
        "a large answer to a client with a small receive buffer arrives byte for byte, in many writes",
        arguments: PollerBackend.allCases)
    func largeAnswerToSlowReader(backend: PollerBackend) throws {
        // Patient: checking 8 MiB in a debug build may take longer than the short idle timeout.
        try withLiveServer(Self.patient(backend), router: Self.router()) { server in
            let client = try RawClient(port: server.port, timeout: 20)
            // The server finds the socket full again and again, and writes each time it is told there is room.
            client.shrinkReceiveBuffer(to: 65536)
            for kib in [8192, 1] {
                try client.send("GET /big/\(kib) HTTP/1.1\r\nHost: x\r\n\r\n")
                let big = try client.readResponse()
                #expect(big.status == 200)
                #expect(big.body.count == kib * 1024)
                let intact = big.body.elementsEqual(Self.pattern.prefix(kib * 1024))
                #expect(intact, "the body arrived altered")
            }
        }
    }

    @Test(
        "a client that stops reading is disconnected after the write timeout; others are served meanwhile",
        arguments: PollerBackend.allCases)
    func stalledReader(backend: PollerBackend) throws {
        var configuration = Self.patient(backend)
        configuration.writeTimeout = .milliseconds(500)
        try withLiveServer(configuration, router: Self.router()) { server in
            let stalled = try RawClient(port: server.port)
            stalled.shrinkReceiveBuffer()
            try stalled.send("GET /big/8192 HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(eventually { server.openConnections == 1 })
            #expect(try fetch(server.port, "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
            #expect(eventually { server.openConnections == 0 })
        }
    }

    /// How a client gives up.
    enum Ending: CaseIterable, CustomStringConvertible {
        /// A FIN, or a reset when the client left bytes unread.
        case close
        /// The client may still read its answers (RFC 9112 §9.6).
        case halfClose
        /// SO_LINGER 0 and close, as a killed process: a reset.
        case reset

        func apply(to client: RawClient) {
            switch self {
            case .close: client.closeNow()
            case .halfClose: client.finishSending()
            case .reset:
                client.reset()
                client.closeNow()
            }
        }

        var description: String {
            switch self {
            case .close: "close"
            case .halfClose: "half-close"
            case .reset: "reset"
            }
        }
    }

    @Test(
        "a client that gives up at any stage of a request leaves no connection open",
        arguments: PollerBackend.allCases)
    func clientsThatGiveUp(backend: PollerBackend) throws {
        let upload = Array("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789".utf8)
        let headEnd = upload.count - 10
        var stages = [1, 12, headEnd - 1, headEnd, headEnd + 4, upload.count].map {
            ("upload cut at \($0) of \(upload.count)", Array(upload.prefix($0)), Ending.allCases)
        }
        // A handler still working (it answers in 300 ms), and a large answer the client does not read. A
        // client that half-closes there may still read: the write timeout, not its end, frees that connection.
        stages.append(
            (
                "a request whose handler is busy", Array("GET /later/300 HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
                Ending.allCases
            ))
        stages.append(
            ("a large answer left unread", Array("GET /big/8192 HTTP/1.1\r\nHost: x\r\n\r\n".utf8), [.close, .reset]))
        try withLiveServer(Self.patient(backend), router: Self.router()) { server in
            for (stage, bytes, endings) in stages {
                for ending in endings {
                    let client = try RawClient(port: server.port)
                    client.shrinkReceiveBuffer()
                    try client.send(bytes)
                    // Counted first, so that the zero below is this connection closing, not it not yet open.
                    #expect(eventually { server.openConnections == 1 }, "\(stage), \(ending): never accepted")
                    ending.apply(to: client)
                    #expect(eventually { server.openConnections == 0 }, "\(stage), \(ending): still open")
                    client.closeNow()
                }
            }
        }
    }

    @Test(
        "answers from many threads at once all arrive, each connection's in request order",
        arguments: PollerBackend.allCases)
    func answersFromManyThreads(backend: PollerBackend) throws {
        try withLiveServer(.on(backend)) { server in
            let clients = try (0..<8).map { _ in try RawClient(port: server.port) }
            for (number, client) in clients.enumerated() {
                let requests = (0..<16).map { index in
                    "GET /later/\((index * 7 + number * 3) % 20)?id=\(number)-\(index) HTTP/1.1\r\nHost: x\r\n\r\n"
                }
                try client.send(requests.joined())
            }
            for (number, client) in clients.enumerated() {
                for index in 0..<16 {
                    #expect(try client.readResponse().text == "{\"id\":\"\(number)-\(index)\"}")
                }
            }
        }
    }
}
