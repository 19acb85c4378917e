import Dispatch
import GronaMockHTTP
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// Streamed bodies (`HTTPBodyStream`) on a real socket: chunked framing, the answers pipelined behind one,
/// back-pressure from a client that does not read, and a client that leaves mid-body.
@Suite("HTTP streamed bodies, live on 127.0.0.1", .serialized)
struct HTTPBodyStreamTests {
    /// The body's bytes: piece `index` of `size` bytes, each byte a function of its position.
    static func piece(_ index: Int, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: index &* 31 &+ $0) }
    }

    /// A router with `GET /stream` answering `pieces` pieces of `size` bytes, made on a pool, and keeping each
    /// stream it made in `made` for the test to watch.
    static func router(
        pieces: Int, size: Int, pool: BlockingPool, made: Streams, stopsWhenClientCloses: Bool = false
    ) -> Router {
        var router = TestRoutes.router()
        router.on(.get, "/stream") { _ in
            let stream = HTTPBodyStream(
                state: 0, executor: pool.execute, stopsWhenClientCloses: stopsWhenClientCloses
            ) { index in
                guard index < pieces else { return nil }
                defer { index += 1 }
                return piece(index, size: size)
            }
            made.add(stream)
            return HTTPResponse.streamed(stream, contentType: "application/octet-stream")
        }
        return router
    }

    final class Streams: Sendable {
        private let streams = Mutex<[HTTPBodyStream]>([])
        func add(_ stream: HTTPBodyStream) { streams.withLock { $0.append(stream) } }
        var last: HTTPBodyStream? { streams.withLock { $0.last } }
    }

    @Test("a streamed body arrives whole and chunked, and a pipelined request is answered after it")
    func wholeAndPipelined() throws {
        let pool = BlockingPool(threads: 1)
        defer { pool.stop() }
        let made = Streams()
        try withLiveServer(router: Self.router(pieces: 40, size: 10_000, pool: pool, made: made)) { server in
            let client = try RawClient(port: server.port)
            try client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            let head = try client.readResponse(forHead: true)
            #expect(head.status == 200)
            #expect(head.header("Transfer-Encoding") == "chunked")
            #expect(head.header("Content-Length") == nil)
            let body = try client.readChunkedBody()
            #expect(body == (0..<40).flatMap { Self.piece($0, size: 10_000) })
            let next = try client.readResponse()
            #expect(next.status == 200)
        }
    }

    @Test("a client that does not read holds the producer back; reading on, it gets every byte")
    func backPressure() throws {
        let pool = BlockingPool(threads: 1)
        defer { pool.stop() }
        let made = Streams()
        // 64 MiB, far more than the socket buffers and the connection's queue hold together.
        let pieces = 1_024
        let size = 64 * 1024
        try withLiveServer(router: Self.router(pieces: pieces, size: size, pool: pool, made: made)) { server in
            let client = try RawClient(port: server.port, timeout: 30)
            try client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(eventually { (made.last?.producedBytes ?? 0) > 0 })
            // The producer stops once the socket and the queue are full: its count stops moving.
            #expect(Self.settles { made.last?.producedBytes ?? 0 })
            let held = made.last?.producedBytes ?? 0
            // What the server made and the client did not read: its queue (`lowWater`), one piece being
            // queued, and what the kernel buffers: the send buffer (tcp_wmem, 4 MiB at most by default on Linux)
            // and the receive window of a client that reads nothing, which stays near its initial size.
            #expect(held <= HTTPBodyStream.lowWater + size + 12 * 1024 * 1024, "\(held) bytes made ahead")
            #expect(held < pieces * size / 4)
            _ = try client.readResponse(forHead: true)
            let body = try client.readChunkedBody()
            #expect(body.count == pieces * size)
            #expect(made.last?.producedBytes == pieces * size)
        }
    }

    @Test("a client that leaves mid-body cancels the stream and leaves no connection behind")
    func clientLeaves() throws {
        let pool = BlockingPool(threads: 1)
        defer { pool.stop() }
        let made = Streams()
        try withLiveServer(router: Self.router(pieces: 100_000, size: 16 * 1024, pool: pool, made: made)) { server in
            do {
                let client = try RawClient(port: server.port)
                try client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
                _ = try client.readResponse(forHead: true)
                #expect(eventually { (made.last?.producedBytes ?? 0) > 1024 * 1024 })
                client.reset()
            }
            #expect(eventually { server.openConnections == 0 })
            #expect(eventually { made.last?.isCancelled == true })
            let other = try RawClient(port: server.port)
            try other.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try other.readResponse().status == 200)
        }
    }
}

extension HTTPBodyStreamTests {
    @Test(
        "a client that half-closes still reads a finite stream whole; an endless one stops at its FIN",
        arguments: [false, true])
    func halfClose(stopsWhenClientCloses: Bool) throws {
        let pool = BlockingPool(threads: 1)
        defer { pool.stop() }
        let made = Streams()
        let router = Self.router(
            pieces: 200, size: 64 * 1024, pool: pool, made: made, stopsWhenClientCloses: stopsWhenClientCloses)
        try withLiveServer(router: router) { server in
            let client = try RawClient(port: server.port, timeout: 30)
            try client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try client.readResponse(forHead: true)
            // RFC 9112 §9.6: the client says it sends no more, and still reads.
            client.finishSending()
            if stopsWhenClientCloses {
                #expect(eventually { made.last?.isCancelled == true })
                #expect(eventually { server.openConnections == 0 })
            } else {
                #expect(try client.readChunkedBody().count == 200 * 64 * 1024)
                #expect(made.last?.isCancelled == false)
            }
        }
    }

    /// Whether `value` stops changing (the same over 200 ms) within 20 s: a condition with a deadline.
    static func settles(_ value: () -> Int) -> Bool {
        let deadline = DispatchTime.now() + .seconds(20)
        var last = value()
        var stableSince = DispatchTime.now()
        while DispatchTime.now() < deadline {
            _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(20))
            let now = value()
            if now != last {
                last = now
                stableSince = DispatchTime.now()
            } else if DispatchTime.now().uptimeNanoseconds - stableSince.uptimeNanoseconds >= 200_000_000 {
                return true
            }
        }
        return false
    }
}
